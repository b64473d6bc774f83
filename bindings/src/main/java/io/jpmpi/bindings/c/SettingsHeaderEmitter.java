package io.jpmpi.bindings.c;

import io.jpmpi.platform.InstallLayout;
import io.jpmpi.platform.Settings.Setting;
import io.jpmpi.platform.Settings;

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
        b.append("/* generated from io.jpmpi.platform.Settings by io.jpmpi.bindings.c.SettingsHeaderEmitter - do not edit */\n");
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
        b.append("\n/* The install layout (io.jpmpi.platform.InstallLayout): paths below the prefix, which is\n"
                + " * JPMPI_LAYOUT_LIB_DEPTH directories above a library in lib/<mpi>/. */\n");
        b.append("#define JPMPI_LAYOUT_LIB_DEPTH ").append(InstallLayout.LIB_DEPTH).append('\n');
        define(b, "JPMPI_LAYOUT_RUNTIME", InstallLayout.JAVA_RUNTIME);
        define(b, "JPMPI_LAYOUT_PROPERTIES", InstallLayout.PROPERTIES);
        define(b, "JPMPI_LAYOUT_SITE_CONFIG", InstallLayout.SITE_CONFIG);
        define(b, "JPMPI_LAYOUT_JAVA_HOME_KEY", InstallLayout.JAVA_HOME_KEY);
        define(b, "JPMPI_LAYOUT_AOT_INFO_SUFFIX", InstallLayout.AOT_INFO_SUFFIX);
        define(b, "JPMPI_LAYOUT_AOT_JAVA_HOME_KEY", InstallLayout.AOT_JAVA_HOME_KEY);
        define(b, "JPMPI_LAYOUT_AOT_CLASSPATH_KEY", InstallLayout.AOT_CLASSPATH_KEY);
        define(b, "JPMPI_LAYOUT_AOT_MAP_OPTIONS_KEY", InstallLayout.AOT_MAP_OPTIONS_KEY);
        b.append("#define JPMPI_LAYOUT_RUNTIME_JARS {");
        for (int i = 0; i < InstallLayout.RUNTIME_JARS.length; i++) {
            b.append(i > 0 ? ", " : "").append('"').append(InstallLayout.RUNTIME_JARS[i]).append('"');
        }
        b.append("}\n");
        b.append("\n#endif\n");
        return b.toString();
    }

    private static void define(StringBuilder b, String macro, String value) {
        b.append("#define ").append(macro).append(" \"").append(value).append("\"\n");
    }
}
