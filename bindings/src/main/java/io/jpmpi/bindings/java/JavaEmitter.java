package io.jpmpi.bindings.java;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.ParameterSpec;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import io.jpmpi.platform.Settings;
import io.jpmpi.specs.MpiConstants;
import io.jpmpi.specs.MpiFunction;
import io.jpmpi.specs.MpiSpec;
import io.jpmpi.specs.Parameter;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;

/**
 * Emits the Java bindings of the interceptor API from the spec, into the {@code generated}
 * package of the layering module (never committed):
 * <ul>
 *   <li>{@code MpiFunctions}: an id per MPI function (the same on every implementation), its name,
 *       its ABI shape per implementation and its neutral shape (see {@link Signatures});</li>
 *   <li>{@code InterceptorMethods}: one overridable method per MPI function, Javadoc from the spec,
 *       whose body passes the call to the next level;</li>
 *   <li>{@code AroundMethods}: every interceptor method overridden to call {@code enter(id)} before
 *       and {@code exit(id, token)} after passing the call on (the base of
 *       {@code io.jpmpi.layering.Around}, for tools that watch every call);</li>
 *   <li>{@code Mpi}: one method per MPI function that calls a given level through an FFM downcall
 *       (the runtime makes one for the next level, PMPI semantics, and one for the level itself,
 *       MPI semantics);</li>
 *   <li>{@code Upcalls}: per MPI function, what its upcall stub runs - the interceptor's override,
 *       the lifecycle callbacks around MPI_Init/MPI_Finalize, and fault containment (a plain
 *       try/catch, so installing a stub composes few method handles and the JVM starts fast);</li>
 *   <li>{@code Constants}: the predefined handles and constants of the running MPI.</li>
 * </ul>
 * Handles are {@code long} in all of them, whatever the MPI's ABI: one jar runs everywhere. So are
 * pointers (addresses): nothing is allocated to pass a call through.
 */
public final class JavaEmitter {
    public static final String PACKAGE = "io.jpmpi.layering.generated";
    static final String RUNTIME = "io.jpmpi.layering.runtime";
    static final String HEADER = "generated from specs/mpi-functions.json and specs/mpi-constants.json by "
            + "io.jpmpi.bindings.java.JavaEmitter - do not edit";
    static final String PCONTROL = "MPI_Pcontrol";

    private static final ClassName FUNCTIONS = ClassName.get(PACKAGE, "MpiFunctions");
    private static final ClassName MPI = ClassName.get(PACKAGE, "Mpi");
    private static final ClassName DOWNCALLS = ClassName.get(RUNTIME, "Downcalls");
    private static final ClassName CALL_MARKS = ClassName.get(RUNTIME, "CallMarks");
    private static final ClassName CALL_TARGETS = ClassName.get(RUNTIME, "CallTargets");
    private static final ClassName ABI = ClassName.get(RUNTIME, "Abi");
    private static final ClassName UPCALL_SITE = ClassName.get(RUNTIME, "UpcallSite");
    private static final ClassName INTERCEPTOR_METHODS = ClassName.get(PACKAGE, "InterceptorMethods");
    private static final ClassName INTERCEPTOR = ClassName.get("io.jpmpi.layering", "Interceptor");

    private final MpiSpec spec;
    private final MpiConstants constants;
    private final Signatures signatures;
    private final List<MpiFunction> functions;

    public JavaEmitter(MpiSpec spec, MpiConstants constants) {
        this.spec = spec;
        this.constants = constants;
        this.signatures = new Signatures(constants);
        this.functions = spec.functions();
    }

    /** Relative path → source text. */
    public Map<String, String> emit() {
        Map<String, String> files = new LinkedHashMap<>();
        for (TypeSpec type : List.of(functions(), interceptorMethods(), aroundMethods(), mpi(), upcalls(), constantsClass(),
                variables())) {
            JavaFile file = JavaFile.builder(PACKAGE, type).addFileComment(HEADER).skipJavaLangImports(true)
                    .indent("    ").build();
            files.put(PACKAGE.replace('.', '/') + "/" + type.name() + ".java", file.toString());
        }
        return files;
    }

    /** Functions with an interceptor method (all but the varargs MPI_Pcontrol, delivered typed). */
    private List<MpiFunction> intercepted() {
        return functions.stream().filter(f -> !f.name().equals(PCONTROL)).toList();
    }

    private TypeSpec functions() {
        TypeSpec.Builder t = TypeSpec.classBuilder("MpiFunctions").addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc("Every MPI function of the spec by id: {@code MpiFunctions.MPI_Send} is the id of MPI_Send on"
                        + " every\nimplementation (the C dispatcher's slot numbers differ per implementation; the runtime"
                        + " maps\nthem by name).\n")
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        for (int i = 0; i < functions.size(); i++) {
            t.addField(FieldSpec.builder(int.class, functions.get(i).name(), Modifier.PUBLIC, Modifier.STATIC,
                    Modifier.FINAL).initializer("$L", i).build());
        }
        t.addField(FieldSpec.builder(int.class, "COUNT", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                .addJavadoc("Number of functions.\n").initializer("$L", functions.size()).build());
        t.addField(joined("NAMES", "The C name of each id.", functions.stream().map(MpiFunction::name).toList()));
        t.addField(joined("NEUTRAL", "The neutral shape of each id (handles as J); \"-\" for MPI_Pcontrol.",
                functions.stream().map(f -> f.isVarargs() ? "-" : signatures.neutral(f)).toList()));
        CodeBlock.Builder impls = CodeBlock.builder();
        List<String> ids = List.copyOf(spec.implementations().keySet());
        t.addField(FieldSpec.builder(String[].class, "IMPLEMENTATIONS", Modifier.STATIC, Modifier.FINAL)
                .addJavadoc("The implementations of the spec, in the order of {@link #SHAPES}.\n")
                .initializer("{$L}", ids.stream().map(id -> CodeBlock.of("$S", id).toString())
                        .collect(Collectors.joining(", ")))
                .build());
        for (String impl : ids) {
            List<String> shapes = functions.stream()
                    .map(f -> !f.declaredBy(impl) ? "-" : signatures.shape(f, impl))
                    .toList();
            impls.add("$S.split(\",\"),\n", String.join(",", shapes));
        }
        t.addField(FieldSpec.builder(String[][].class, "SHAPES", Modifier.STATIC, Modifier.FINAL)
                .addJavadoc("Per implementation, the ABI shape of each id; \"-\" where it lacks the function.\n")
                .initializer(CodeBlock.builder().add("{\n").indent().add(impls.build()).unindent().add("}").build())
                .build());
        t.addField(FieldSpec.builder(String[].class, "HANDLE_TYPES", Modifier.STATIC, Modifier.FINAL)
                .addJavadoc("Handle type {@code 'a' + i} of a shape.\n")
                .initializer("$S.split(\",\")", String.join(",", constants.handleTypes())).build());
        t.addMethod(MethodSpec.methodBuilder("name").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class).addParameter(int.class, "id")
                .addJavadoc("The C name of function {@code id}.\n").addStatement("return NAMES[id]").build());
        t.addMethod(MethodSpec.methodBuilder("shape").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class).addParameter(String.class, "implementation").addParameter(int.class, "id")
                .addJavadoc("The ABI shape of function {@code id} in an implementation, or null where it lacks it.\n")
                .beginControlFlow("for (int i = 0; i < IMPLEMENTATIONS.length; i++)")
                .beginControlFlow("if (IMPLEMENTATIONS[i].equals(implementation))")
                .addStatement("String s = SHAPES[i][id]")
                .addStatement("return s.equals(\"-\") ? null : s")
                .endControlFlow().endControlFlow()
                .addStatement("throw new $T(\"no implementation \" + implementation)", IllegalArgumentException.class)
                .build());
        t.addMethod(MethodSpec.methodBuilder("neutral").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class).addParameter(int.class, "id")
                .addJavadoc("The neutral shape of function {@code id}: the types of its Java methods.\n")
                .addStatement("return NEUTRAL[id]").build());
        t.addMethod(MethodSpec.methodBuilder("handleType").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class).addParameter(char.class, "code")
                .addJavadoc("The C handle type of a lower-case shape code.\n")
                .addStatement("return HANDLE_TYPES[code - 'a']").build());
        return t.build();
    }

    private static FieldSpec joined(String name, String doc, List<String> values) {
        return FieldSpec.builder(String[].class, name, Modifier.STATIC, Modifier.FINAL).addJavadoc(doc + "\n")
                .initializer("$S.split(\",\")", String.join(",", values)).build();
    }

    private TypeSpec interceptorMethods() {
        TypeSpec.Builder t = TypeSpec.classBuilder("InterceptorMethods").addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT)
                .addJavadoc("One method per MPI function; each passes the call to the next level unless overridden.\n"
                        + "Extend {@code io.jpmpi.layering.Interceptor}, not this class.\n")
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PROTECTED).build())
                .addMethod(MethodSpec.methodBuilder("pmpi").addModifiers(Modifier.PROTECTED, Modifier.ABSTRACT)
                        .returns(MPI).addJavadoc("The next level (PMPI semantics).\n").build());
        for (MpiFunction f : intercepted()) {
            Method m = method(f);
            t.addMethod(m.builder().addModifiers(Modifier.PUBLIC).addJavadoc(javadoc(f))
                    .addStatement("return pmpi().$N($L)", f.name(), m.arguments()).build());
        }
        return t.build();
    }

    private TypeSpec aroundMethods() {
        TypeSpec.Builder t = TypeSpec.classBuilder("AroundMethods").addModifiers(Modifier.PUBLIC, Modifier.ABSTRACT)
                .superclass(INTERCEPTOR)
                .addJavadoc("Every MPI function passed on to the next level between {@code enter} and {@code exit}.\n"
                        + "Extend {@code io.jpmpi.layering.Around}, not this class.\n")
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PROTECTED).build())
                .addMethod(MethodSpec.methodBuilder("enter").addModifiers(Modifier.PROTECTED, Modifier.ABSTRACT)
                        .returns(long.class).addParameter(int.class, "function")
                        .addJavadoc("Before function {@code function} (an id of MpiFunctions) goes on; the result is"
                                + " given to exit.\n").build())
                .addMethod(MethodSpec.methodBuilder("exit").addModifiers(Modifier.PROTECTED, Modifier.ABSTRACT)
                        .addParameter(int.class, "function").addParameter(long.class, "token")
                        .addJavadoc("After function {@code function} returned (or threw) below this level.\n").build());
        for (MpiFunction f : intercepted()) {
            Method m = method(f);
            String token = m.names().newName("token");
            t.addMethod(m.builder().addModifiers(Modifier.PUBLIC).addAnnotation(Override.class)
                    .addStatement("long $N = enter($T.$N)", token, FUNCTIONS, f.name())
                    .beginControlFlow("try")
                    .addStatement("return pmpi().$N($L)", f.name(), m.arguments())
                    .nextControlFlow("finally")
                    .addStatement("exit($T.$N, $N)", FUNCTIONS, f.name(), token)
                    .endControlFlow().build());
        }
        return t.build();
    }

    private TypeSpec mpi() {
        TypeSpec.Builder t = TypeSpec.classBuilder("Mpi").addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc("Calls MPI functions at one position of the chain through FFM downcalls: an interceptor's"
                        + "\n{@code pmpi()} reaches the next level, its {@code mpi()} its own level (the top of its jar)."
                        + "\nA function the running MPI lacks throws UnsupportedOperationException.\n")
                .addField(FieldSpec.builder(CALL_TARGETS, "targets", Modifier.PRIVATE, Modifier.FINAL).build())
                .addField(FieldSpec.builder(boolean.class, "marks", Modifier.PRIVATE, Modifier.FINAL).build())
                .addField(FieldSpec.builder(boolean.class, "self", Modifier.PRIVATE, Modifier.FINAL).build())
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PUBLIC)
                        .addJavadoc("Made by the runtime.\n")
                        .addParameter(CALL_TARGETS, "targets")
                        .addStatement("this.targets = targets")
                        .addStatement("this.marks = targets.next()")
                        .addStatement("this.self = targets.self()").build());
        for (MpiFunction f : intercepted()) {
            Method m = method(f);
            String holder = "H_" + f.name();
            t.addType(TypeSpec.classBuilder(holder).addModifiers(Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
                    .addField(FieldSpec.builder(MethodHandle.class, "HANDLE", Modifier.STATIC, Modifier.FINAL)
                            .initializer("$T.handle($T.$N)", DOWNCALLS, FUNCTIONS, f.name()).build())
                    .build());
            TypeName ret = m.returns();
            String target = m.names().newName("target");
            String result = m.names().newName("result");
            String failure = m.names().newName("failure");
            CodeBlock bits = ret.equals(TypeName.DOUBLE) ? CodeBlock.of("$T.doubleToRawLongBits($N)", Double.class, result)
                    : CodeBlock.of("$N", result);
            MethodSpec.Builder b = m.builder().addModifiers(Modifier.PUBLIC).addJavadoc("Calls {@code $L}.\n", f.name())
                    .addStatement("$T $N = targets.at($T.$N)", MemorySegment.class, target, FUNCTIONS, f.name())
                    .beginControlFlow("try")
                    .addStatement("$T $N = ($T) $N.HANDLE.invokeExact($N$L)", ret, result, ret, holder, target,
                            m.arguments().isEmpty() ? "" : ", " + m.arguments())
                    .beginControlFlow("if (marks)")
                    .addStatement("$T.delivered($T.$N, $L)", CALL_MARKS, FUNCTIONS, f.name(), bits)
                    .nextControlFlow("else if (self)")
                    .addStatement("$T.leftSelf()", CALL_MARKS)
                    .endControlFlow()
                    .addStatement("return $N", result)
                    .nextControlFlow("catch ($T $N)", Throwable.class, failure)
                    .beginControlFlow("if (self)")
                    .addStatement("$T.leftSelf()", CALL_MARKS)
                    .endControlFlow()
                    .addStatement("throw $T.rethrow($T.$N, $N)", DOWNCALLS, FUNCTIONS, f.name(), failure)
                    .endControlFlow();
            t.addMethod(b.build());
        }
        return t.build();
    }

    private TypeSpec upcalls() {
        TypeSpec.Builder t = TypeSpec.classBuilder("Upcalls").addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc("What the upcall stub of each MPI function runs: the interceptor's method with its faults"
                        + "\ncontained (see UpcallSite). Used by the runtime only.\n")
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        for (MpiFunction f : intercepted()) {
            Method m = method(f);
            String it = m.names().newName("interceptor");
            String site = m.names().newName("site");
            String start = m.names().newName("start");
            String result = m.names().newName("result");
            String failure = m.names().newName("failure");
            TypeName ret = m.returns();
            TypeName box = ret.box();
            MethodSpec.Builder b = MethodSpec.methodBuilder(f.name()).addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                    .returns(ret).addJavadoc("The upcall of {@code $L}.\n", f.name())
                    .addParameter(INTERCEPTOR_METHODS, it).addParameter(UPCALL_SITE, site);
            m.builder().build().parameters().forEach(b::addParameter);
            b.addStatement("long $N = $N.start()", start, site).beginControlFlow("try");
            String call = f.name() + "(" + m.arguments() + ")";
            switch (f.name()) {
                case "MPI_Init", "MPI_Init_thread" -> b.addStatement("$T $N = $N.$L", ret, result, it, call)
                        .addStatement("$N.afterInit($N)", site, result).addStatement("return $N", result);
                case "MPI_Finalize" -> b.addStatement("$N.beforeFinalize()", site).addStatement("return $N.$L", it, call);
                default -> b.addStatement("return $N.$L", it, call);
            }
            b.nextControlFlow("catch ($T $N)", Throwable.class, failure)
                    .addStatement("return ($T) $N.recover($N, $N$L)", box, site, failure, start,
                            m.arguments().isEmpty() ? "" : ", " + m.arguments())
                    .endControlFlow();
            t.addMethod(b.build());
        }
        return t.build();
    }

    private TypeSpec constantsClass() {
        TypeSpec.Builder t = TypeSpec.classBuilder("Constants").addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc("Predefined handles and constants of the running MPI, read from its dispatcher at start-up"
                        + "\n(handles and addresses as {@code long}; a constant this MPI lacks holds {@code Abi.MISSING}).\n")
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        for (Map.Entry<String, String> e : constants.typeOfConstant().entrySet()) {
            String name = e.getKey();
            String type = e.getValue();
            FieldSpec.Builder f;
            if (type.equals(MpiConstants.INT)) {
                f = FieldSpec.builder(int.class, name).initializer("$T.integer($S)", ABI, name);
            } else if (type.equals(MpiConstants.ADDRESS)) {
                f = FieldSpec.builder(long.class, name).initializer("$T.address($S)", ABI, name);
            } else {
                f = FieldSpec.builder(long.class, name).initializer("$T.handle($S)", ABI, name);
            }
            t.addField(f.addModifiers(Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                    .addJavadoc("{@code $L} ($L$L).\n", name, type,
                            constants.optional().contains(name) ? ", not in every MPI" : "")
                    .build());
        }
        return t.build();
    }

    /**
     * The environment variables read in the ranks, by the one table's names (io.jpmpi.platform.Settings),
     * so that no Java level spells a JPMPI_* name by hand: the Java side of jpmpi_settings.h.
     */
    private static TypeSpec variables() {
        TypeSpec.Builder t = TypeSpec.classBuilder("Variables").addModifiers(Modifier.PUBLIC, Modifier.FINAL)
                .addJavadoc("The environment variables jpmpi's parts read in the ranks, named from\n"
                        + "io.jpmpi.platform.Settings.\n")
                .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
        for (Settings.Setting s : Settings.all()) {
            if (s.reader() == Settings.Reader.LAUNCHER) {
                continue;
            }
            t.addField(FieldSpec.builder(String.class, s.area() + "_" + s.key(), Modifier.PUBLIC, Modifier.STATIC,
                    Modifier.FINAL).initializer("$S", s.env()).addJavadoc("$L ($L; default: $L)\n", s.description(),
                    s.reader().label, s.defaultValue()).build());
        }
        return t.build();
    }

    /** A method's signature in neutral Java types, with safe parameter names. */
    private record Method(MethodSpec.Builder builder, TypeName returns, String arguments, NameAllocator names) {
    }

    private Method method(MpiFunction f) {
        String shape = signatures.neutral(f);
        NameAllocator names = new NameAllocator();
        TypeName ret = javaType(shape.charAt(0));
        MethodSpec.Builder b = MethodSpec.methodBuilder(f.name()).returns(ret);
        List<String> args = new ArrayList<>();
        int i = 1;
        for (Parameter p : f.parameters()) {
            if (p.isVarargs()) {
                continue;
            }
            String name = names.newName(p.name(), p);
            b.addParameter(ParameterSpec.builder(javaType(shape.charAt(i++)), name).build());
            args.add(name);
        }
        return new Method(b, ret, String.join(", ", args), names);
    }

    private static TypeName javaType(char code) {
        return switch (code) {
            case 'I' -> TypeName.INT;
            case 'J' -> TypeName.LONG;
            case 'D' -> TypeName.DOUBLE;
            case 'P' -> TypeName.LONG; // an address; the ABI passes pointers like 64-bit integers
            default -> throw new IllegalStateException("neutral shape code " + code);
        };
    }

    private CodeBlock javadoc(MpiFunction f) {
        CodeBlock.Builder d = CodeBlock.builder();
        String impl = f.implementations().get(0);
        d.add("{@code $L $L($L)}\n", f.returnType(impl), f.name(), f.parameters().stream()
                .map(p -> p.isVarargs() ? "..." : p.cType(impl) + " " + p.name()).collect(Collectors.joining(", ")));
        d.add("<p>Category $L$L; in $L.\n", f.category().toString().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                f.largeCount() ? ", large-count form of {@code " + f.base() + "}" : "",
                String.join(", ", f.implementations()));
        d.add("Handles are {@code long} whatever the MPI's ABI; pointers are addresses ({@code long}, 0 for NULL).\n");
        for (Parameter p : f.parameters()) {
            if (p.isVarargs()) {
                continue;
            }
            d.add("@param $L $L$L$L\n", p.name(), p.kind() == null ? "" : p.kind(),
                    p.direction() == null ? "" : " (" + p.direction().toString().toLowerCase(java.util.Locale.ROOT) + ")",
                    p.rootOnly() ? ", significant at the root only" : "");
        }
        d.add("@return $L\n", f.returnKind() == null ? "the MPI error code" : f.returnKind());
        return d.build();
    }
}
