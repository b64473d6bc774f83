package io.jpmpi.bindings.c;

import io.jpmpi.specs.Settings;
import io.jpmpi.specs.Settings.Setting;

/**
 * Emits {@code jpmpi_settings.h}: the names of the environment variables the dispatcher and the C halves of the tools read, from
 * the one configuration table ({@link Settings}), so the C core never spells a name itself.
 * {@code JPMPI_SETTING_<AREA>_<KEY>} is the variable's name, {@code ..._ALIAS} the variable read
 * when it is unset.
 */
public final class SettingsHeaderEmitter {
    private SettingsHeaderEmitter() {
    }

    public static String emit() {
        StringBuilder b = new StringBuilder();
        b.append("/* generated from io.jpmpi.specs.Settings by io.jpmpi.bindings.c.SettingsHeaderEmitter - do not edit */\n");
        b.append("#ifndef JPMPI_SETTINGS_H\n#define JPMPI_SETTINGS_H\n\n");
        for (Setting s : Settings.all()) {
            if (s.reader() == Settings.Reader.LAUNCHER) {
                continue;
            }
            String macro = "JPMPI_SETTING_" + s.area() + "_" + s.key();
            b.append("/* ").append(s.description().replace("*/", "* /")).append(" */\n");
            b.append("#define ").append(macro).append(" \"").append(s.env()).append("\"\n");
            if (s.alias() != null) {
                b.append("#define ").append(macro).append("_ALIAS \"").append(s.alias()).append("\"\n");
            }
        }
        b.append("\n#endif\n");
        return b.toString();
    }
}
