package io.jpmpi.tools;

import io.jpmpi.layering.Interceptor;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a file given as a Java level is, before a rank tries it, in the words the ranks' runtime
 * uses: a directory, not a readable jar, no interceptor listed, and for each class its services
 * file lists: there, a subclass of Interceptor, public, concrete, with a public constructor without
 * arguments. The classes are loaded without being initialised and never instantiated: a static
 * initialiser or a constructor may do anything (open files, start threads, call MPI), which belongs
 * in the ranks, not in the launcher; one that throws is reported by every rank (one line each).
 */
final class JavaLevelFile {
    private JavaLevelFile() {
    }

    /** Why {@code jar} cannot be a Java level, or empty. */
    static Optional<String> whatIsWrong(Path jar) {
        if (Files.isDirectory(jar)) {
            return Optional.of("is a directory");
        }
        List<String> classes;
        try {
            classes = EntryList.interceptorsOf(jar);
        } catch (IOException e) {
            return Optional.of("not a readable jar (" + e.getMessage() + ")");
        }
        if (classes.isEmpty()) {
            return Optional.of("has no interceptor (a Java level lists its io.jpmpi.layering.Interceptor subclasses"
                    + " in " + EntryList.SERVICES + ")");
        }
        URL url;
        try {
            url = jar.toUri().toURL();
        } catch (IOException e) {
            return Optional.of("not a usable path (" + e.getMessage() + ")");
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {url}, Interceptor.class.getClassLoader())) {
            for (String name : classes) {
                Optional<String> wrong = checkClass(loader, name);
                if (wrong.isPresent()) {
                    return wrong;
                }
            }
        } catch (IOException e) {
            return Optional.of("not a readable jar (" + e.getMessage() + ")");
        }
        return Optional.empty();
    }

    private static Optional<String> checkClass(ClassLoader loader, String name) {
        Class<?> c;
        try {
            c = Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            return Optional.of("interceptor " + name + ", listed in " + EntryList.SERVICES + ", is not in the jar");
        } catch (LinkageError e) {
            return Optional.of("interceptor " + name + " cannot be loaded (" + e + ")");
        }
        String what = "interceptor " + name;
        if (!Interceptor.class.isAssignableFrom(c)) {
            return Optional.of(what + " is not a subclass of " + Interceptor.class.getName());
        }
        if (!Modifier.isPublic(c.getModifiers()) || Modifier.isAbstract(c.getModifiers())) {
            return Optional.of(what + " is not a public concrete class");
        }
        try {
            c.getConstructor();
        } catch (NoSuchMethodException e) {
            return Optional.of(what + " has no public constructor without arguments");
        } catch (LinkageError e) {
            return Optional.of(what + " cannot be loaded (" + e + ")");
        }
        return Optional.empty();
    }
}
