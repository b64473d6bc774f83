package io.jpmpi.layering.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.CodeSource;
import java.security.cert.Certificate;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The class loader of one Java level: the jar's classes, parent-first over the jpmpi runtime. As
 * each class of the jar loads, its calls to System.exit, Runtime.exit and Runtime.halt are
 * rewritten (ASM) into calls of {@link ExitTrap}, so an interceptor cannot end the rank, and so are
 * the ways to reach them by reflection, method handles and method references (see ExitTrap);
 * calls made from code loaded elsewhere (JNI, the JDK's own) are not seen, and the JVM's exit hook
 * still reports them.
 */
final class LevelClassLoader extends URLClassLoader {
    private static final String TRAP = ExitTrap.class.getName().replace('.', '/');
    private static final String INTERNAL = LevelClassLoader.class.getPackageName() + ".";

    static {
        registerAsParallelCapable();
    }

    private final URL jar;

    LevelClassLoader(URL jar, ClassLoader parent) {
        this(null, jar, parent);
    }

    /**
     * {@code name}: "level K 'entry'", the words every message about the level starts with; stack
     * frames of its classes carry it (StackTraceElement.getClassLoaderName), which is how an
     * exception in a thread of the level's own is told apart from others.
     */
    LevelClassLoader(String name, URL jar, ClassLoader parent) {
        super(name, new URL[] {jar}, parent);
        this.jar = jar;
    }

    /** The level's jar. */
    URL jar() {
        return jar;
    }

    /**
     * The runtime's own classes are not the interceptors' to use (the public API is the package
     * io.jpmpi.layering): a level's reference to one fails to resolve, as it would across modules.
     * The exceptions: the exit trap its rewritten classes call, and the AOT training's own level.
     */
    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith(INTERNAL) && !name.equals(ExitTrap.class.getName())
                && !name.equals(TrainingLevel.class.getName())) {
            throw new ClassNotFoundException(name + " is internal to the jpmpi runtime; interceptors use the API in"
                    + " io.jpmpi.layering");
        }
        return super.loadClass(name, resolve);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        URL url = findResource(name.replace('.', '/') + ".class");
        if (url == null) {
            throw new ClassNotFoundException(name);
        }
        byte[] bytes;
        try (InputStream in = url.openStream()) {
            bytes = rewrite(in.readAllBytes());
        } catch (IOException | RuntimeException e) {
            throw new ClassNotFoundException(name + ": " + e, e);
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0 && getDefinedPackage(name.substring(0, dot)) == null) {
            definePackage(name.substring(0, dot), null, null, null, null, null, null, null);
        }
        return defineClass(name, bytes, 0, bytes.length, new CodeSource(jar, (Certificate[]) null));
    }

    /**
     * Rewrites the calls that would end the process. A class without the name "exit" or "halt", nor
     * of a reflective look-up, in its constant pool cannot reach them and is left alone (ASM is not
     * even loaded).
     */
    static byte[] rewrite(byte[] bytes) {
        if (Stream.of("exit", "halt", "getMethod", "getDeclaredMethod", "findStatic", "findVirtual", "unreflect")
                .noneMatch(word -> contains(bytes, word))) {
            return bytes;
        }
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, desc, signature, exceptions)) {
                    @Override
                    public void visitMethodInsn(int op, String owner, String method, String mdesc, boolean itf) {
                        String[] trap = trap(op, owner, method, mdesc);
                        if (trap == null) {
                            super.visitMethodInsn(op, owner, method, mdesc, itf);
                        } else if (trap[0].equals("after")) {
                            super.visitMethodInsn(op, owner, method, mdesc, itf);
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, TRAP, "checked", trap[1], false);
                        } else {
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, TRAP, trap[0], trap[1], false);
                        }
                    }

                    @Override
                    public void visitLdcInsn(Object value) {
                        super.visitLdcInsn(value instanceof Handle h ? trapped(h) : value);
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String name, String idesc, Handle bsm, Object... args) {
                        Object[] own = args.clone();
                        for (int i = 0; i < own.length; i++) {
                            own[i] = own[i] instanceof Handle h ? trapped(h) : own[i];
                        }
                        super.visitInvokeDynamicInsn(name, idesc, bsm, own);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    private static final String METHOD = "Ljava/lang/reflect/Method;";
    private static final String LOOKUP = "java/lang/invoke/MethodHandles$Lookup";

    /**
     * How one call instruction is rewritten: {trap method, its descriptor} to call the trap instead,
     * {"after", descriptor} to pass the call's result through ExitTrap.checked, or null.
     */
    private static String[] trap(int op, String owner, String method, String desc) {
        if (op == Opcodes.INVOKESTATIC && owner.equals("java/lang/System") && method.equals("exit")
                && desc.equals("(I)V")) {
            return new String[] {"exit", "(I)V"};
        }
        if (op == Opcodes.INVOKEVIRTUAL && owner.equals("java/lang/Runtime")
                && (method.equals("exit") || method.equals("halt")) && desc.equals("(I)V")) {
            return new String[] {method.equals("exit") ? "runtimeExit" : "runtimeHalt", "(Ljava/lang/Runtime;I)V"};
        }
        if (op == Opcodes.INVOKEVIRTUAL && owner.equals("java/lang/Class")) {
            if ((method.equals("getMethod") || method.equals("getDeclaredMethod")) && desc.endsWith(")" + METHOD)) {
                return new String[] {"after", "(" + METHOD + ")" + METHOD};
            }
            if ((method.equals("getMethods") || method.equals("getDeclaredMethods")) && desc.equals("()[" + METHOD)) {
                return new String[] {"after", "([" + METHOD + ")[" + METHOD};
            }
        }
        if (op == Opcodes.INVOKEVIRTUAL && owner.equals(LOOKUP)
                && (method.equals("findStatic") || method.equals("findVirtual") || method.equals("unreflect"))) {
            return new String[] {method, "(L" + LOOKUP + ";" + desc.substring(1)};
        }
        return null;
    }

    /** A method handle constant (a method reference such as System::exit) of an exit: the trap's. */
    private static Handle trapped(Handle h) {
        String[] trap = switch (h.getTag()) {
            case Opcodes.H_INVOKESTATIC -> trap(Opcodes.INVOKESTATIC, h.getOwner(), h.getName(), h.getDesc());
            case Opcodes.H_INVOKEVIRTUAL -> trap(Opcodes.INVOKEVIRTUAL, h.getOwner(), h.getName(), h.getDesc());
            default -> null;
        };
        return trap == null || trap[0].equals("after") || trap[0].startsWith("find") || trap[0].equals("unreflect") ? h
                : new Handle(Opcodes.H_INVOKESTATIC, TRAP, trap[0], trap[1], false);
    }

    private static boolean contains(byte[] bytes, String ascii) {
        outer:
        for (int i = 0; i + ascii.length() <= bytes.length; i++) {
            for (int j = 0; j < ascii.length(); j++) {
                if (bytes[i + j] != ascii.charAt(j)) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
