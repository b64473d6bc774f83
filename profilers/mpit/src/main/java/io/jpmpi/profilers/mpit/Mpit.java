package io.jpmpi.profilers.mpit;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jpmpi.layering.Around;
import io.jpmpi.layering.Memory;
import io.jpmpi.layering.MpiAbi;
import io.jpmpi.layering.generated.Constants;
import io.jpmpi.layering.generated.MPI_Comm;
import io.jpmpi.layering.generated.MPI_Group;
import io.jpmpi.layering.generated.MPI_Info;
import io.jpmpi.layering.generated.MPI_T_cvar_handle;
import io.jpmpi.layering.generated.MPI_T_pvar_handle;
import io.jpmpi.layering.generated.MPI_T_pvar_session;
import io.jpmpi.layering.generated.MpiFunctions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * The {@code mpit} tool: MPI's performance variables read through the tools interface (MPI_T) of the
 * MPI below, in a session of its own, with handles per bind type - unbound ones at start and again
 * after MPI_Init, communicator-bound ones for MPI_COMM_WORLD, MPI_COMM_SELF and every communicator
 * the application creates, window-bound ones for every window - and the changes between reads charged
 * to the MPI call they surround and to the MPI_Pcontrol region they fall in. Control variables are
 * set from {@code JPMPI_MPIT_CVARS} before MPI_Init. See PROFILE.md ("MPI_T").
 *
 * <p>By default it reads only at region boundaries and intercepts only MPI_Init, MPI_Finalize and
 * the functions that create or free communicators and windows: other calls cost nothing.
 */
public final class Mpit extends Around {
    static final String JSON = "mpit.json";
    static final String TEXT = "mpit.txt";

    /** Function ids that create a communicator or window, or free one: always intercepted. */
    private static final Set<Integer> OBJECTS = Set.of(MpiFunctions.MPI_Comm_dup, MpiFunctions.MPI_Comm_dup_with_info,
            MpiFunctions.MPI_Comm_create, MpiFunctions.MPI_Comm_create_group, MpiFunctions.MPI_Comm_split,
            MpiFunctions.MPI_Comm_split_type, MpiFunctions.MPI_Intercomm_create, MpiFunctions.MPI_Intercomm_merge,
            MpiFunctions.MPI_Cart_create, MpiFunctions.MPI_Cart_sub, MpiFunctions.MPI_Graph_create,
            MpiFunctions.MPI_Dist_graph_create, MpiFunctions.MPI_Dist_graph_create_adjacent,
            MpiFunctions.MPI_Comm_free, MpiFunctions.MPI_Comm_disconnect, MpiFunctions.MPI_Win_create,
            MpiFunctions.MPI_Win_allocate, MpiFunctions.MPI_Win_allocate_shared, MpiFunctions.MPI_Win_create_dynamic,
            MpiFunctions.MPI_Win_free);

    private final ReentrantLock lock = new ReentrantLock();
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment object = arena.allocate(8, 8);
    private Options options;
    private String optionsError;
    private Tools tools;
    private MPI_T_pvar_session session;
    private boolean active;
    private volatile boolean reading;
    /** Known performance variables by index (null where an index is not valid). */
    private final List<Variable> pvars = new ArrayList<>();
    final List<Watch> watches = new ArrayList<>();
    private final List<Watch> live = new ArrayList<>();
    final List<String> regions = new ArrayList<>();
    private int region;
    final long[] calls = new long[MpiFunctions.COUNT + 1];
    private long counter;
    /**
     * The report's names of the communicators and windows alive, by handle value ({@code .handle()}
     * of an MPI_Comm or MPI_Win): one shape for both, as MPI_T's bind kinds treat them alike.
     */
    final Map<Long, String> comms = new HashMap<>();
    final Map<Long, String> wins = new HashMap<>();
    private int commSerial;
    /** Handles allocated and freed (a run that frees its communicators ends with as many of each). */
    long allocated;
    /** The cost of reading every live handle once, measured at MPI_Finalize, and how many there were. */
    double readAllNs;
    int readHandles;
    long freed;
    private int winSerial;
    int pvarsBeforeInit = -1;
    int pvarsAfterInit = -1;
    int cvarCount = -1;
    final List<String> notes = new ArrayList<>();
    private final Map<String, Integer> noted = new java.util.LinkedHashMap<>();
    final List<String> cvarsSet = new ArrayList<>();
    /** Bind types of watched variables this tool has no handles for, with their variables. */
    final Map<String, Set<String>> uncovered = new HashMap<>();
    private Listing listing;

    public Mpit() {
        try {
            options = Options.from(System.getenv());
        } catch (IllegalArgumentException e) {
            optionsError = e.getMessage();
            options = Options.from(Map.of());
        }
    }

    Options options() {
        return options;
    }

    @Override
    public boolean intercepts(int function) {
        if (function == MpiFunctions.MPI_Init || function == MpiFunctions.MPI_Init_thread
                || function == MpiFunctions.MPI_Finalize) {
            return true;
        }
        if (options.list() != null) {
            return false;
        }
        return options.mode() == Options.Mode.CALLS || OBJECTS.contains(function);
    }

    // ---- lifecycle -------------------------------------------------------------------------------

    @Override
    public int MPI_Init(long argc, long argv) {
        beforeInit();
        int rc = pmpi().MPI_Init(argc, argv);
        afterInit(rc);
        return rc;
    }

    @Override
    public int MPI_Init_thread(long argc, long argv, int required, long provided) {
        beforeInit();
        int rc = pmpi().MPI_Init_thread(argc, argv, required, provided);
        afterInit(rc);
        return rc;
    }

    private void beforeInit() {
        if (optionsError != null) {
            level().message("mpit: " + optionsError + "; using the defaults");
        }
        lock.lock();
        try {
            tools = new Tools(level().library());
            tools.init(Constants.MPI_THREAD_SINGLE);
            cvarCount = tools.cvarCount();
            if (options.list() != null) {
                listing = new Listing(tools);
                listing.take("before MPI_Init");
            }
            setCvars();
            pvarsBeforeInit = discover();
            session = tools.createSession();
            active = true;
            // Handles are allocated after MPI_Init only: Open MPI 4.1's psm2 component crashes reading its
            // unbound variables before it is initialized (psm2_mq_get_stats in MPI_T_pvar_handle_alloc).
        } catch (RuntimeException e) {
            fail("before MPI_Init", e);
        } finally {
            lock.unlock();
        }
    }

    private void afterInit(int rc) {
        if (tools == null || rc != 0) {
            return;
        }
        lock.lock();
        try {
            if (listing != null) {
                listing.take("after MPI_Init");
            }
            if (!active) {
                return;
            }
            pvarsAfterInit = discover(); // MPIs register more variables as components open at init
            watchUnbound();
            object.fill((byte) 0);
            comms.put(Constants.MPI_COMM_WORLD.handle(), "MPI_COMM_WORLD");
            comms.put(Constants.MPI_COMM_SELF.handle(), "MPI_COMM_SELF");
            bind(Constants.MPI_T_BIND_MPI_COMM, Constants.MPI_COMM_WORLD.handle(), "MPI_Comm");
            bind(Constants.MPI_T_BIND_MPI_COMM, Constants.MPI_COMM_SELF.handle(), "MPI_Comm");
            regions.add("from MPI_Init");
            readAll(-1, -1); // the baseline
            if (level().worldRank() == 0) {
                for (String set : cvarsSet) {
                    level().message("mpit: control variable " + set);
                }
            }
            if (pvarsAfterInit == 0 && level().worldRank() == 0) {
                level().message("mpit: " + level().implementation() + " has no performance variables (MPI_T_pvar_get_num"
                        + " = 0): nothing to read; " + cvarCount + " control variables");
            }
            reading = options.mode() == Options.Mode.CALLS && !live.isEmpty();
        } catch (RuntimeException e) {
            fail("after MPI_Init", e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void pcontrol(int level) {
        lock.lock();
        try {
            if (!active || regions.isEmpty()) {
                return;
            }
            readAll(-1, region);
            regions.add("from MPI_Pcontrol(" + level + ") #" + regions.size());
            region = regions.size() - 1;
        } catch (RuntimeException e) {
            fail("at MPI_Pcontrol", e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void beforeFinalize() {
        if (listing != null) {
            listing.write(options.list(), level());
        }
        lock.lock();
        try {
            reading = false;
            if (active) {
                readAll(-1, region);
                timeReads();
                for (Watch w : live) {
                    release(w);
                }
                live.clear();
                tools.freeSession(session);
                active = false;
            }
        } catch (RuntimeException e) {
            fail("at MPI_Finalize", e);
        } finally {
            lock.unlock();
        }
        try {
            if (tools != null) {
                tools.finish(); // before MPI_Finalize: Open MPI 4.1 crashes on MPI_T_finalize after it
            }
        } catch (RuntimeException e) {
            note("MPI_T_finalize", e.getMessage());
        }
        if (options.list() == null) {
            Results.publish(this, level());
        }
    }

    // ---- the calls -------------------------------------------------------------------------------

    @Override
    protected long enter(int function) {
        if (!reading) {
            return -1;
        }
        lock.lock();
        try {
            if (++counter % options.every() != 0) {
                return -1;
            }
            readAll(Watch.BETWEEN, region);
            return 1;
        } catch (RuntimeException e) {
            fail("before " + MpiFunctions.name(function), e);
            return -1;
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected void exit(int function, long token) {
        if (token < 0 || !reading) {
            return;
        }
        lock.lock();
        try {
            readAll(function, region);
            calls[function]++;
        } catch (RuntimeException e) {
            fail("after " + MpiFunctions.name(function), e);
        } finally {
            lock.unlock();
        }
    }

    private void readAll(int function, int r) {
        for (int i = 0; i < live.size(); i++) {
            live.get(i).read(tools, session, function, r);
        }
    }

    /** What one read of every live handle costs: the median of 101 timed rounds of 20 reads of all. */
    private void timeReads() {
        readHandles = live.size();
        if (live.isEmpty()) {
            return;
        }
        long[] t = new long[101];
        for (int k = 0; k < t.length; k++) {
            long start = System.nanoTime();
            for (int j = 0; j < 20; j++) {
                for (int i = 0; i < live.size(); i++) {
                    live.get(i).probe(tools, session);
                }
            }
            t[k] = System.nanoTime() - start;
        }
        java.util.Arrays.sort(t);
        readAllNs = t[t.length / 2] / 20.0;
    }

    // ---- objects ---------------------------------------------------------------------------------

    @Override
    public int MPI_Comm_dup(MPI_Comm comm, long newcomm) {
        return comm(MpiFunctions.MPI_Comm_dup, () -> pmpi().MPI_Comm_dup(comm, newcomm), newcomm, "dup", comm);
    }

    @Override
    public int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, long newcomm) {
        return comm(MpiFunctions.MPI_Comm_dup_with_info, 
                () -> pmpi().MPI_Comm_dup_with_info(comm, info, newcomm),
                newcomm, "dup", comm);
    }

    @Override
    public int MPI_Comm_create(MPI_Comm comm, MPI_Group group, long newcomm) {
        return comm(MpiFunctions.MPI_Comm_create, 
                () -> pmpi().MPI_Comm_create(comm, group, newcomm),
                newcomm, "create", comm);
    }

    @Override
    public int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, long newcomm) {
        return comm(MpiFunctions.MPI_Comm_create_group, 
                () -> pmpi().MPI_Comm_create_group(comm, group, tag, newcomm),
                newcomm, "create_group", comm);
    }

    @Override
    public int MPI_Comm_split(MPI_Comm comm, int color, int key, long newcomm) {
        return comm(MpiFunctions.MPI_Comm_split, 
                () -> pmpi().MPI_Comm_split(comm, color, key, newcomm),
                newcomm, "split", comm);
    }

    @Override
    public int MPI_Comm_split_type(MPI_Comm comm, int splitType, int key, MPI_Info info, long newcomm) {
        return comm(MpiFunctions.MPI_Comm_split_type, 
                () -> pmpi().MPI_Comm_split_type(comm, splitType, key, info, newcomm),
                newcomm, "split_type", comm);
    }

    @Override
    public int MPI_Intercomm_create(MPI_Comm localComm, int localLeader, MPI_Comm peerComm, int remoteLeader, int tag,
            long newintercomm) {
        return comm(MpiFunctions.MPI_Intercomm_create, 
                () -> pmpi().MPI_Intercomm_create(localComm, localLeader, peerComm, remoteLeader, tag, newintercomm),
                newintercomm, "intercomm_create", localComm);
    }

    @Override
    public int MPI_Intercomm_merge(MPI_Comm intercomm, int high, long newintracomm) {
        return comm(MpiFunctions.MPI_Intercomm_merge, 
                () -> pmpi().MPI_Intercomm_merge(intercomm, high, newintracomm),
                newintracomm, "intercomm_merge", intercomm);
    }

    @Override
    public int MPI_Cart_create(MPI_Comm commOld, int ndims, long dims, long periods, int reorder, long commCart) {
        return comm(MpiFunctions.MPI_Cart_create, 
                () -> pmpi().MPI_Cart_create(commOld, ndims, dims, periods, reorder, commCart),
                commCart, "cart_create", commOld);
    }

    @Override
    public int MPI_Cart_sub(MPI_Comm comm, long remainDims, long newcomm) {
        return comm(MpiFunctions.MPI_Cart_sub, 
                () -> pmpi().MPI_Cart_sub(comm, remainDims, newcomm),
                newcomm, "cart_sub", comm);
    }

    @Override
    public int MPI_Graph_create(MPI_Comm commOld, int nnodes, long index, long edges, int reorder, long commGraph) {
        return comm(MpiFunctions.MPI_Graph_create, 
                () -> pmpi().MPI_Graph_create(commOld, nnodes, index, edges, reorder, commGraph),
                commGraph, "graph_create", commOld);
    }

    @Override
    public int MPI_Dist_graph_create(MPI_Comm commOld, int n, long sources, long degrees, long destinations, long weights,
            MPI_Info info, int reorder, long commDistGraph) {
        return comm(MpiFunctions.MPI_Dist_graph_create, 
                () -> pmpi().MPI_Dist_graph_create(commOld, n, sources, degrees, destinations, weights, info, reorder, commDistGraph),
                commDistGraph, "dist_graph_create", commOld);
    }

    @Override
    public int MPI_Dist_graph_create_adjacent(MPI_Comm commOld, int indegree, long sources, long sourceweights,
            int outdegree, long destinations, long destweights, MPI_Info info, int reorder, long commDistGraph) {
        return comm(MpiFunctions.MPI_Dist_graph_create_adjacent, 
                () -> pmpi().MPI_Dist_graph_create_adjacent(commOld, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, commDistGraph),
                commDistGraph, "dist_graph_create_adjacent", commOld);
    }

    @Override
    public int MPI_Comm_free(long comm) {
        return free(MpiFunctions.MPI_Comm_free, Constants.MPI_T_BIND_MPI_COMM, comm, "MPI_Comm", comms, () -> pmpi().MPI_Comm_free(comm));
    }

    @Override
    public int MPI_Comm_disconnect(long comm) {
        return free(MpiFunctions.MPI_Comm_disconnect, Constants.MPI_T_BIND_MPI_COMM, comm, "MPI_Comm", comms, () -> pmpi().MPI_Comm_disconnect(comm));
    }

    @Override
    public int MPI_Win_create(long base, long size, int dispUnit, MPI_Info info, MPI_Comm comm, long win) {
        return win(MpiFunctions.MPI_Win_create, 
                () -> pmpi().MPI_Win_create(base, size, dispUnit, info, comm, win),
                win, comm);
    }

    @Override
    public int MPI_Win_allocate(long size, int dispUnit, MPI_Info info, MPI_Comm comm, long baseptr, long win) {
        return win(MpiFunctions.MPI_Win_allocate, 
                () -> pmpi().MPI_Win_allocate(size, dispUnit, info, comm, baseptr, win),
                win, comm);
    }

    @Override
    public int MPI_Win_allocate_shared(long size, int dispUnit, MPI_Info info, MPI_Comm comm, long baseptr, long win) {
        return win(MpiFunctions.MPI_Win_allocate_shared, 
                () -> pmpi().MPI_Win_allocate_shared(size, dispUnit, info, comm, baseptr, win),
                win, comm);
    }

    @Override
    public int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, long win) {
        return win(MpiFunctions.MPI_Win_create_dynamic, 
                () -> pmpi().MPI_Win_create_dynamic(info, comm, win),
                win, comm);
    }

    @Override
    public int MPI_Win_free(long win) {
        return free(MpiFunctions.MPI_Win_free, Constants.MPI_T_BIND_MPI_WIN, win, "MPI_Win", wins, () -> pmpi().MPI_Win_free(win));
    }

    private static long handleAt(long address, String type) {
        return MpiAbi.handleSize(type) == 8 ? Memory.getLong(address) : Memory.getInt(address);
    }

    /** Runs a call that makes a communicator at {@code at} (from {@code parent}, by {@code how}). */
    private int comm(int id, IntSupplier call, long at, String how, MPI_Comm parent) {
        return made(id, call, Constants.MPI_T_BIND_MPI_COMM, "MPI_Comm", Constants.MPI_COMM_NULL.handle(), at, comms,
                () -> "comm " + (++commSerial) + " (" + how + " of " + comms.getOrDefault(parent.handle(), "?") + ")");
    }

    /** Runs a call that makes a window at {@code at} over {@code comm}. */
    private int win(int id, IntSupplier call, long at, MPI_Comm comm) {
        return made(id, call, Constants.MPI_T_BIND_MPI_WIN, "MPI_Win", Constants.MPI_WIN_NULL.handle(), at, wins,
                () -> "win " + (++winSerial) + " (on " + comms.getOrDefault(comm.handle(), "?") + ")");
    }

    /**
     * Runs a call that makes an object of C type {@code type} at {@code at}; if it did, names it and
     * allocates handles for the variables bound to it.
     */
    private int made(int id, IntSupplier call, int bind, String type, long nullHandle, long at,
            Map<Long, String> names, java.util.function.Supplier<String> label) {
        long t = enter(id);
        int rc;
        try {
            rc = call.getAsInt();
        } finally {
            exit(id, t);
        }
        long h = rc == 0 ? handleAt(at, type) : nullHandle;
        if (h == nullHandle) {
            return rc;
        }
        lock.lock();
        try {
            names.put(h, label.get());
            if (active) {
                bind(bind, h, type);
            }
        } catch (RuntimeException e) {
            fail("after " + MpiFunctions.name(id), e);
        } finally {
            lock.unlock();
        }
        return rc;
    }

    /** Runs a call that frees the object at {@code at}, after a last read of its variables and freeing their handles. */
    private int free(int id, int bind, long at, String type, Map<Long, String> names, IntSupplier call) {
        long t = enter(id);
        try {
            forget(bind, handleAt(at, type), names);
            return call.getAsInt();
        } finally {
            exit(id, t);
        }
    }

    /** The object {@code handle} is about to be freed: a last read of its watches, then free their handles. */
    private void forget(int bind, long handle, Map<Long, String> names) {
        lock.lock();
        try {
            if (active) {
                for (int i = live.size() - 1; i >= 0; i--) {
                    Watch w = live.get(i);
                    if (w.var.bind() == bind && w.objectHandle == handle) {
                        w.read(tools, session, -1, region);
                        w.objectFreed = true;
                        release(w);
                        live.remove(i);
                    }
                }
            }
            names.remove(handle);
        } catch (RuntimeException e) {
            fail("before freeing an object", e);
        } finally {
            lock.unlock();
        }
    }

    private void release(Watch w) {
        if (w.started) {
            try {
                tools.stop(session, w.handle);
            } catch (Tools.MpiTException e) {
                if (e.code != Constants.MPI_T_ERR_PVAR_NO_STARTSTOP) { // Open MPI's monitoring variables
                    note(w.var.name(), e.getMessage());
                }
            }
        }
        tools.freePvar(session, w.handle);
        freed++;
    }

    // ---- variables -------------------------------------------------------------------------------

    /** Re-queries the number of performance variables and describes the new ones; returns the number. */
    private int discover() {
        int n = tools.pvarCount();
        for (int i = 0; i < n; i++) {
            Variable v = tools.pvar(i);
            if (i < pvars.size()) {
                pvars.set(i, v);
            } else {
                pvars.add(v);
            }
        }
        return n;
    }

    private final Set<Integer> watchedUnbound = new HashSet<>();

    private void watchUnbound() {
        for (Variable v : pvars) {
            if (v == null || !options.watches(v.name()) || !v.type().numeric()) {
                continue;
            }
            if (v.bind() == Constants.MPI_T_BIND_NO_OBJECT) {
                if (watchedUnbound.add(v.index())) {
                    allocate(v, 0, "-", 0);
                }
            } else if (v.bind() != Constants.MPI_T_BIND_MPI_COMM && v.bind() != Constants.MPI_T_BIND_MPI_WIN) {
                uncovered.computeIfAbsent(v.bindName(), k -> new java.util.TreeSet<>()).add(v.name());
            }
        }
    }

    /** Allocates handles for every watched variable bound to {@code bind}, for the object {@code handle}. */
    private void bind(int bind, long handle, String type) {
        Map<Long, String> names = bind == Constants.MPI_T_BIND_MPI_COMM ? comms : wins;
        for (Variable v : pvars) {
            if (v != null && v.bind() == bind && options.watches(v.name()) && v.type().numeric()) {
                Tools.setHandle(object, type, handle);
                allocate(v, object.address(), names.getOrDefault(handle, "?"), handle);
            }
        }
    }

    private void allocate(Variable v, long objectAddress, String label, long objectHandle) {
        int[] count = new int[1];
        MPI_T_pvar_handle h;
        try {
            h = tools.allocPvar(session, v.index(), objectAddress, count);
        } catch (Tools.MpiTException e) {
            note(v.name(), e.getMessage());
            return;
        }
        allocated++;
        Watch w = new Watch(v, label, objectHandle, h, count[0], arena);
        if (!v.continuous()) {
            try {
                tools.start(session, h);
                w.started = true;
            } catch (Tools.MpiTException e) {
                if (e.code != Constants.MPI_T_ERR_PVAR_NO_STARTSTOP) {
                    note(v.name(), e.getMessage());
                } // else: described as not continuous, but it runs by itself (Open MPI's monitoring variables)
            }
        }
        watches.add(w);
        live.add(w);
        w.read(tools, session, -1, -1); // the baseline
    }

    // ---- control variables -----------------------------------------------------------------------

    private void setCvars() {
        if (options.cvars().isEmpty()) {
            return;
        }
        Map<String, Variable> byName = new HashMap<>();
        for (int i = 0; i < cvarCount; i++) {
            Variable v = tools.cvar(i);
            if (v != null) {
                byName.putIfAbsent(v.name(), v);
            }
        }
        for (String[] nv : options.cvars()) {
            Variable v = byName.get(nv[0]);
            String what;
            if (v == null) {
                what = nv[0] + ": no such control variable in " + level().implementation() + " (jpmpi mpit list shows"
                        + " them)";
            } else {
                what = setCvar(v, nv[1]);
            }
            cvarsSet.add(what);
        }
    }

    private String setCvar(Variable v, String text) {
        if (v.bind() != Constants.MPI_T_BIND_NO_OBJECT) {
            return v.name() + ": bound to " + v.bindName() + ", not settable before MPI_Init";
        }
        if (v.scope() == Constants.MPI_T_SCOPE_CONSTANT || v.scope() == Constants.MPI_T_SCOPE_READONLY) {
            return v.name() + ": scope " + v.scopeName() + ", the MPI does not let it be set";
        }
        int[] count = new int[1];
        MPI_T_cvar_handle h;
        try {
            h = tools.allocCvar(v.index(), count);
        } catch (Tools.MpiTException e) {
            return v.name() + ": " + e.getMessage();
        }
        try (Arena a = Arena.ofConfined()) {
            int n = Math.max(1, count[0]);
            MemorySegment before = a.allocate(Math.max(8L, (long) n * Math.max(1, v.type().size)) + 1, 8);
            MemorySegment value = a.allocate(before.byteSize(), 8);
            tools.readCvar(h, before.address());
            String old = show(v, before, n);
            if (!encode(v, text, value, n)) {
                return v.name() + ": '" + text + "' is not a " + v.type().mpiName + " value"
                        + (!v.enumtype().equals(Constants.MPI_T_ENUM_NULL) ? " (items: " + String.join(", ",
                                tools.enumItems(v.enumtype())) + ")" : "");
            }
            tools.writeCvar(h, value.address());
            tools.readCvar(h, before.address());
            return v.name() + " = " + show(v, before, n) + " (was " + old + ")";
        } catch (Tools.MpiTException e) {
            return v.name() + ": " + e.getMessage();
        } finally {
            try {
                tools.freeCvar(h);
            } catch (Tools.MpiTException e) {
                note(v.name(), e.getMessage());
            }
        }
    }

    /** Encodes {@code text} as the cvar's datatype (an enumeration item's name is accepted too). */
    private boolean encode(Variable v, String text, MemorySegment into, int count) {
        into.fill((byte) 0);
        if (v.type() == Variable.Type.CHAR) {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            if (b.length >= into.byteSize()) {
                return false;
            }
            MemorySegment.copy(b, 0, into, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b.length);
            return true;
        }
        String t = text;
        if (!v.enumtype().equals(Constants.MPI_T_ENUM_NULL)) {
            for (String item : tools.enumItems(v.enumtype())) {
                int eq = item.indexOf('=');
                if (item.substring(eq + 1).equalsIgnoreCase(text)) {
                    t = item.substring(0, eq);
                }
            }
        }
        if (t.equalsIgnoreCase("true")) {
            t = "1";
        } else if (t.equalsIgnoreCase("false")) {
            t = "0";
        }
        try {
            switch (v.type()) {
                case INT, UNSIGNED -> into.set(JAVA_INT, 0, (int) Long.parseLong(t));
                case UNSIGNED_LONG, UNSIGNED_LONG_LONG, COUNT -> into.set(JAVA_LONG, 0, Long.parseUnsignedLong(t));
                case DOUBLE -> into.set(JAVA_DOUBLE, 0, Double.parseDouble(t));
                default -> {
                    return false;
                }
            }
        } catch (NumberFormatException e) {
            return false;
        }
        return count >= 1;
    }

    static String show(Variable v, MemorySegment s, int count) {
        return switch (v.type()) {
            case CHAR -> "'" + s.getString(0) + "'";
            case INT -> String.valueOf(s.get(JAVA_INT, 0));
            case UNSIGNED -> String.valueOf(Integer.toUnsignedLong(s.get(JAVA_INT, 0)));
            case UNSIGNED_LONG, UNSIGNED_LONG_LONG -> Long.toUnsignedString(s.get(JAVA_LONG, 0));
            case COUNT -> String.valueOf(s.get(JAVA_LONG, 0));
            case DOUBLE -> String.valueOf(s.get(JAVA_DOUBLE, 0));
            default -> "?";
        } + (count > 1 ? " (+" + (count - 1) + " more)" : "");
    }

    /** A problem with one variable: noted once per variable and message, with how often it happened. */
    private void note(String variable, String message) {
        noted.merge(variable + ": " + message, 1, Integer::sum);
    }

    /** The notes for the results: faults, and each variable's problems with their counts. */
    List<String> notes() {
        List<String> out = new ArrayList<>(notes);
        noted.forEach((k, n) -> out.add(n == 1 ? k : k + " (" + n + " handles)"));
        return out;
    }

    // ---- faults ----------------------------------------------------------------------------------

    /** MPI_T failed: one line, and the tool stops reading; the application's calls are not touched. */
    private void fail(String when, RuntimeException e) {
        reading = false;
        boolean was = active;
        active = false;
        String line = "mpit: " + when + ": " + e.getMessage() + (was ? "; no more reads for the rest of the run" : "");
        notes.add(line);
        level().message(line);
    }
}
