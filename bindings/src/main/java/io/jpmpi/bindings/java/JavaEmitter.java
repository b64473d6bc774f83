package io.jpmpi.bindings.java;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.ParameterSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
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
 *   <li>{@code Constants}: the predefined handles and constants of the running MPI;</li>
 *   <li>one record per handle type ({@code MPI_Comm}, {@code MPI_Datatype}, ...: the C names, so the
 *       methods read as the C prototypes and no name clashes with java.lang or java.io), holding the
 *       handle as a {@code long} whatever the MPI's width.</li>
 * </ul>
 * The interceptor API (InterceptorMethods, AroundMethods, Mpi, Constants) is typed: a datatype
 * passed for a communicator does not compile. Below it, the upcall adapters and the downcalls carry
 * the neutral types (handles as {@code long}): the adapter makes the records, the downcall unwraps
 * them, and because each adapter is bound to its interceptor (JavaLevel), C2 inlines the override
 * and the records never exist on the heap (benchmarks/README.md, "typed-handles/"). Pointers are
 * addresses ({@code long}): nothing is allocated to pass a call through. One jar runs everywhere.
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
        List<TypeSpec> types = new ArrayList<>(List.of(functions(), interceptorMethods(), aroundMethods(), mpi(), upcalls(),
                constantsClass(), variables()));
        for (String handleType : constants.handleTypes()) {
            types.add(handleRecord(handleType));
        }
        for (TypeSpec type : types) {
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
        t.addField(joined("API", "The API shape of each id (a handle's letter where every MPI agrees on its type); \"-\""
                + " for MPI_Pcontrol.", functions.stream().map(f -> f.isVarargs() ? "-" : signatures.api(f)).toList()));
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
        t.addMethod(MethodSpec.methodBuilder("api").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class).addParameter(int.class, "id")
                .addJavadoc("The API shape of function {@code id}: the types of the interceptor API's method (a"
                        + " lower-case\nletter is the record of that handle type, see {@link #handleClass}).\n")
                .addStatement("return API[id]").build());
        t.addMethod(MethodSpec.methodBuilder("handleType").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(String.class).addParameter(char.class, "code")
                .addJavadoc("The C handle type of a lower-case shape code.\n")
                .addStatement("return HANDLE_TYPES[code - 'a']").build());
        CodeBlock.Builder classes = CodeBlock.builder();
        for (String h : constants.handleTypes()) {
            classes.add("case '$L' -> $T.class;\n", (char) ('a' + constants.handleTypes().indexOf(h)), handleClass(h));
        }
        t.addMethod(MethodSpec.methodBuilder("handleClass").addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(ParameterizedTypeName.get(ClassName.get(Class.class), WildcardTypeName.subtypeOf(Object.class)))
                .addParameter(char.class, "code")
                .addJavadoc("The record of a lower-case shape code's handle type (its Java type in the API).\n")
                .addCode("return switch (code) {\n$>$L", classes.build())
                .addCode("default -> throw new $T(\"no handle type \" + code);\n$<};\n", IllegalArgumentException.class)
                .build());
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
            TypeName ret = javaType(m.neutral().charAt(0));
            String target = m.names().newName("target");
            String result = m.names().newName("result");
            String failure = m.names().newName("failure");
            CodeBlock bits = ret.equals(TypeName.DOUBLE) ? CodeBlock.of("$T.doubleToRawLongBits($N)", Double.class, result)
                    : CodeBlock.of("$N", result);
            CodeBlock back = isHandle(m.api().charAt(0)) ? CodeBlock.of("new $T($N)", m.returns(), result)
                    : CodeBlock.of("$N", result);
            CodeBlock unwrapped = unwrapped(m);
            MethodSpec.Builder b = m.builder().addModifiers(Modifier.PUBLIC).addJavadoc("Calls {@code $L}.\n", f.name())
                    .addStatement("$T $N = targets.at($T.$N)", MemorySegment.class, target, FUNCTIONS, f.name())
                    .beginControlFlow("try")
                    .addStatement("$T $N = ($T) $N.HANDLE.invokeExact($N$L)", ret, result, ret, holder, target,
                            unwrapped.isEmpty() ? "" : CodeBlock.of(", $L", unwrapped))
                    .beginControlFlow("if (marks)")
                    .addStatement("$T.delivered($T.$N, $L)", CALL_MARKS, FUNCTIONS, f.name(), bits)
                    .nextControlFlow("else if (self)")
                    .addStatement("$T.leftSelf()", CALL_MARKS)
                    .endControlFlow()
                    .addStatement("return $L", back)
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
            TypeName ret = javaType(m.neutral().charAt(0));
            TypeName box = ret.box();
            MethodSpec.Builder b = MethodSpec.methodBuilder(f.name()).addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                    .returns(ret).addJavadoc("The upcall of {@code $L}: the neutral types in, the records made for the"
                            + " interceptor.\n", f.name())
                    .addParameter(INTERCEPTOR_METHODS, it).addParameter(UPCALL_SITE, site);
            for (int i = 0; i < m.params().size(); i++) {
                b.addParameter(javaType(m.neutral().charAt(i + 1)), m.params().get(i));
            }
            b.addStatement("long $N = $N.start()", start, site).beginControlFlow("try");
            CodeBlock call = CodeBlock.of("$N($L)$L", f.name(), wrapped(m), isHandle(m.api().charAt(0)) ? ".handle()" : "");
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
                        + "\n(handles as their type's record, e.g. {@code MPI_COMM_WORLD} an {@link MPI_Comm}; addresses as"
                        + "\n{@code long}; a constant this MPI lacks holds {@code Abi.MISSING}, in a record for a handle).\n")
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
                f = FieldSpec.builder(handleClass(type), name).initializer("new $T($T.handle($S))", handleClass(type), ABI,
                        name);
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

    /**
     * A method's signature in the API's types (handles as their records), with safe parameter names;
     * {@code api} and {@code neutral} are its shapes, {@code params} the parameter names in order.
     */
    private record Method(MethodSpec.Builder builder, TypeName returns, String arguments, NameAllocator names, String api,
                          String neutral, List<String> params) {
    }

    private Method method(MpiFunction f) {
        String api = signatures.api(f);
        NameAllocator names = new NameAllocator();
        TypeName ret = apiType(api.charAt(0));
        MethodSpec.Builder b = MethodSpec.methodBuilder(f.name()).returns(ret);
        List<String> args = new ArrayList<>();
        int i = 1;
        for (Parameter p : f.parameters()) {
            if (p.isVarargs()) {
                continue;
            }
            String name = names.newName(p.name(), p);
            b.addParameter(ParameterSpec.builder(apiType(api.charAt(i++)), name).build());
            args.add(name);
        }
        return new Method(b, ret, String.join(", ", args), names, api, signatures.neutral(f), args);
    }

    /** The arguments as the neutral types (the downcall's): each record unwrapped. */
    private static CodeBlock unwrapped(Method m) {
        List<CodeBlock> out = new ArrayList<>();
        for (int i = 0; i < m.params().size(); i++) {
            out.add(CodeBlock.of(isHandle(m.api().charAt(i + 1)) ? "$N.handle()" : "$N", m.params().get(i)));
        }
        return CodeBlock.join(out, ", ");
    }

    /** The arguments as the API's types (the interceptor's): a record made around each handle. */
    private CodeBlock wrapped(Method m) {
        List<CodeBlock> out = new ArrayList<>();
        for (int i = 0; i < m.params().size(); i++) {
            char c = m.api().charAt(i + 1);
            out.add(isHandle(c) ? CodeBlock.of("new $T($N)", apiType(c), m.params().get(i)) : CodeBlock.of("$N", m.params().get(i)));
        }
        return CodeBlock.join(out, ", ");
    }

    private static boolean isHandle(char code) {
        return Character.isLowerCase(code);
    }

    /** The Java type of a neutral shape code. */
    private static TypeName javaType(char code) {
        return switch (code) {
            case 'I' -> TypeName.INT;
            case 'J' -> TypeName.LONG;
            case 'D' -> TypeName.DOUBLE;
            case 'P' -> TypeName.LONG; // an address; the ABI passes pointers like 64-bit integers
            default -> throw new IllegalStateException("neutral shape code " + code);
        };
    }

    /** The Java type of an API shape code: a handle's record, else as neutral. */
    private TypeName apiType(char code) {
        return isHandle(code) ? handleClass(constants.handleTypes().get(code - 'a')) : javaType(code);
    }

    private static ClassName handleClass(String handleType) {
        return ClassName.get(PACKAGE, handleType);
    }

    /**
     * The record of one handle type. Java's equality and hash are the handle's (two records of one
     * value are one MPI object, as C compares handles); toString shows the value in hex.
     */
    private TypeSpec handleRecord(String type) {
        ClassName self = handleClass(type);
        ClassName memory = ClassName.get(RUNTIME, "HandleMemory");
        TypeSpec width = TypeSpec.classBuilder("Width").addModifiers(Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
                .addJavadoc("Read when first needed (the running MPI's ABI is known by then).\n")
                .addField(FieldSpec.builder(int.class, "BYTES", Modifier.STATIC, Modifier.FINAL)
                        .initializer("$T.handleSize($S)", ABI, type).build())
                .build();
        return TypeSpec.recordBuilder(self).addModifiers(Modifier.PUBLIC)
                .recordConstructor(MethodSpec.constructorBuilder().addParameter(long.class, "handle").build())
                .addJavadoc("An {@code $L} handle of the running MPI: the value C passes, as a {@code long} whatever the MPI's"
                        + "\nwidth (a pointer in Open MPI; an int or a pointer in MPICH: {@link #bytes}), so one jar runs on both. The typed"
                        + "\nAPI makes these records around the values in each call and C2 removes them when the upcall"
                        + "\ninlines the interceptor; a record stored away is an ordinary object.\n"
                        + "<p>Equal values are equal records ({@link #equals}, {@link #hashCode}): compare with {@code equals},"
                        + "\nnot {@code ==}, e.g. {@code comm.equals(Constants.MPI_COMM_WORLD)}.\n"
                        + "@param handle the handle's value (an int handle sign-extended)\n", type)
                .addType(width)
                .addMethod(MethodSpec.methodBuilder("bytes").addModifiers(Modifier.PUBLIC, Modifier.STATIC).returns(int.class)
                        .addJavadoc("The size of one {@code $L} in the running MPI's memory (8 or 4).\n", type)
                        .addStatement("return Width.BYTES").build())
                .addMethod(MethodSpec.methodBuilder("read").addModifiers(Modifier.PUBLIC, Modifier.STATIC).returns(self)
                        .addParameter(long.class, "address")
                        .addJavadoc("The handle stored at {@code address} (an out-parameter after the call, e.g. the new"
                                + "\ncommunicator of MPI_Comm_dup), in the running MPI's width.\n")
                        .addStatement("return new $T($T.read(Width.BYTES, address))", self, memory).build())
                .addMethod(MethodSpec.methodBuilder("read").addModifiers(Modifier.PUBLIC, Modifier.STATIC).returns(self)
                        .addParameter(long.class, "address").addParameter(int.class, "index")
                        .addJavadoc("Element {@code index} of an array of handles at {@code address} (e.g. the requests of"
                                + "\nMPI_Waitall), in the running MPI's width.\n")
                        .addStatement("return new $T($T.read(Width.BYTES, address + (long) Width.BYTES * index))", self,
                                memory).build())
                .addMethod(MethodSpec.methodBuilder("write").addModifiers(Modifier.PUBLIC).addParameter(long.class, "address")
                        .addJavadoc("Stores this handle at {@code address}, in the running MPI's width.\n")
                        .addStatement("$T.write(Width.BYTES, address, handle)", memory).build())
                .addMethod(MethodSpec.methodBuilder("write").addModifiers(Modifier.PUBLIC).addParameter(long.class, "address")
                        .addParameter(int.class, "index")
                        .addJavadoc("Stores this handle as element {@code index} of an array at {@code address}.\n")
                        .addStatement("$T.write(Width.BYTES, address + (long) Width.BYTES * index, handle)", memory).build())
                .addMethod(MethodSpec.methodBuilder("toString").addModifiers(Modifier.PUBLIC).addAnnotation(Override.class)
                        .returns(String.class).addJavadoc("{@code $L(0x...)}: the value in hex (an int handle's 32 bits).\n",
                                type)
                        .addStatement("return $S + (handle == (int) handle ? $T.toHexString((int) handle) : $T.toHexString(handle))"
                                + " + $S", type + "(0x", Integer.class, Long.class, ")").build())
                .build();
    }

    private CodeBlock javadoc(MpiFunction f) {
        CodeBlock.Builder d = CodeBlock.builder();
        String impl = f.implementations().get(0);
        d.add("{@code $L $L($L)}\n", f.returnType(impl), f.name(), f.parameters().stream()
                .map(p -> p.isVarargs() ? "..." : p.cType(impl) + " " + p.name()).collect(Collectors.joining(", ")));
        d.add("<p>Category $L$L; in $L.\n", f.category().toString().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                f.largeCount() ? ", large-count form of {@code " + f.base() + "}" : "",
                String.join(", ", f.implementations()));
        d.add("Handles are records of their type (a {@code long} inside, whatever the MPI's width); pointers are"
                + " addresses\n({@code long}, 0 for NULL).\n");
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
