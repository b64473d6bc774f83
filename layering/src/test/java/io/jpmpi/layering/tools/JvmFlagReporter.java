package io.jpmpi.layering.tools;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.jpmpi.layering.Interceptor;
import java.lang.management.ManagementFactory;

/**
 * Says, after MPI_Init, the value the rank's JVM runs with of the HotSpot flags the dispatcher's
 * JVM start chooses for the per-call cost ("jvm rank R: UseSystemMemoryBarrier=true").
 */
public final class JvmFlagReporter extends Interceptor {
    @Override
    public void afterInit() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        System.out.println("jvm rank " + level().worldRank() + ": UseSystemMemoryBarrier="
                + vm.getVMOption("UseSystemMemoryBarrier").getValue());
    }
}
