package io.jpmpi.tools;

import io.jpmpi.platform.InstallLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jpmpi new-tool NAME}: writes a Maven project of a Java level that builds and tests offline:
 * its plugins pinned to the versions jpmpi's own build uses (so the local repository that built jpmpi
 * holds them), the interceptor API taken from this installation's jar (no repository), the Maven
 * wrapper of jpmpi's build, one interceptor, and a JUnit test that runs it on 2 ranks under mpirun
 * through bin/jpmpi. The templates are this jar's resources ({@code newtool/}).
 */
@Command(name = "new-tool", mixinStandardHelpOptions = true,
        description = {"Write a ready Maven project of a Java level (interceptor, services file, a JUnit test that"
                + " runs it on 2 ranks under mpirun through jpmpi, the Maven wrapper) that builds offline:"
                + " cd NAME && ./mvnw -o verify."})
public final class NewToolCommand implements Callable<Integer> {
    /** A Maven artifactId that is also a directory name and gives a Java package and class name. */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");

    @Parameters(paramLabel = "NAME", description = "The tool's name: lower-case letters, digits and dashes"
            + " (e.g. barrier-count); the artifactId, the package tool.<name without dashes>.")
    String name;

    @Option(names = "--dir", paramLabel = "D", description = "Where to write the project (default: ./NAME);"
            + " a new or empty directory.")
    Path dir;

    private final Context ctx;

    public NewToolCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws JpmpiException {
        if (!NAME.matcher(name).matches()) {
            throw new JpmpiException(ExitCode.USAGE, "new-tool: '" + name + "' is not a tool name: lower-case"
                    + " letters, digits and single dashes, starting with a letter (e.g. barrier-count)");
        }
        Path to = (dir != null ? dir : Path.of(name)).toAbsolutePath().normalize();
        if (Files.exists(to) && !emptyDirectory(to)) {
            throw new JpmpiException(ExitCode.USAGE, "new-tool: " + to + " exists and is not an empty directory;"
                    + " choose another with --dir");
        }
        Path wrapper = ctx.layout().home().resolve(InstallLayout.NEW_TOOL);
        Path mvnw = wrapper.resolve("mvnw");
        Path wrapperProperties = wrapper.resolve("maven-wrapper.properties");
        if (!Files.isRegularFile(mvnw) || !Files.isRegularFile(wrapperProperties)) {
            throw new JpmpiException(ExitCode.NOT_BUILT, "new-tool: this installation has no Maven wrapper ("
                    + mvnw + " is missing)");
        }
        Map<String, String> tokens = tokens(to, wrapperProperties);
        String pkgPath = tokens.get("PACKAGE_PATH");
        String cls = tokens.get("CLASS");
        try {
            write(to.resolve("pom.xml"), fill("pom.xml", tokens));
            write(to.resolve("README.md"), fill("README.md", tokens));
            write(to.resolve("src/main/java/" + pkgPath + "/" + cls + ".java"), fill("Interceptor.java", tokens));
            write(to.resolve("src/main/resources/META-INF/services/io.jpmpi.layering.Interceptor"),
                    tokens.get("PACKAGE") + "." + cls + "\n");
            write(to.resolve("src/test/java/" + pkgPath + "/" + cls + "Test.java"), fill("Test.java", tokens));
            write(to.resolve("src/test/c/app.c"), fill("app.c", tokens));
            write(to.resolve(".mvn/wrapper/maven-wrapper.properties"), Files.readString(wrapperProperties));
            write(to.resolve("mvnw"), Files.readString(mvnw));
            Files.setPosixFilePermissions(to.resolve("mvnw"), PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.CANNOT_START, "new-tool: cannot write the project in " + to + ": "
                    + e.getMessage());
        }
        ctx.note("wrote the tool project " + name + " in " + to + " (interceptor " + tokens.get("PACKAGE") + "."
                + cls + ")");
        ctx.note("build and test it offline, with a JDK >= 22 in JAVA_HOME: cd " + to + " && ./mvnw -o verify"
                + " (or mvn -o verify); then: jpmpi run --tools " + to.resolve("target/" + name + "-1.0.jar")
                + " -- mpirun -np 4 ./app");
        return ExitCode.OK.code;
    }

    private Map<String, String> tokens(Path to, Path wrapperProperties) throws JpmpiException {
        Map<String, String> t = new LinkedHashMap<>();
        String pkg = "tool." + name.replace("-", "");
        t.put("NAME", name);
        t.put("PACKAGE", pkg);
        t.put("PACKAGE_PATH", pkg.replace('.', '/'));
        StringBuilder cls = new StringBuilder();
        for (String part : name.split("-")) {
            cls.append(Character.toUpperCase(part.charAt(0))).append(part, 1, part.length());
        }
        t.put("CLASS", cls.toString());
        t.put("JPMPI_HOME", ctx.layout().home().toString());
        t.put("JPMPI_VERSION", ctx.layout().properties().getProperty(InstallLayout.VERSION_KEY, "unknown"));
        Properties versions = new Properties();
        try (InputStream in = resource("versions.properties")) {
            versions.load(in);
            Properties wrapper = new Properties();
            try (InputStream w = Files.newInputStream(wrapperProperties)) {
                wrapper.load(w);
            }
            Matcher m = Pattern.compile("apache-maven-([^/]+)-bin").matcher(wrapper.getProperty("distributionUrl", ""));
            t.put("WRAPPER_MAVEN", m.find() ? m.group(1) : "of jpmpi's build");
        } catch (IOException e) {
            throw new JpmpiException(ExitCode.NOT_BUILT, "new-tool: cannot read the templates: " + e.getMessage());
        }
        versions.stringPropertyNames().forEach(k -> t.put(k, versions.getProperty(k)));
        return t;
    }

    /** The template {@code file}.template with each {@code @KEY@} replaced. */
    private static String fill(String file, Map<String, String> tokens) throws IOException {
        String text;
        try (InputStream in = resource(file + ".template")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (Map.Entry<String, String> e : tokens.entrySet()) {
            text = text.replace("@" + e.getKey() + "@", e.getValue());
        }
        return text;
    }

    private static InputStream resource(String file) throws IOException {
        InputStream in = NewToolCommand.class.getResourceAsStream("newtool/" + file);
        if (in == null) {
            throw new IOException("no template newtool/" + file + " in the launcher's jar");
        }
        return in;
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static boolean emptyDirectory(Path p) {
        if (!Files.isDirectory(p)) {
            return false;
        }
        try (Stream<Path> s = Files.list(p)) {
            return s.findAny().isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
