package dev.nhc.checks.gpu.amd;

import java.util.ArrayList;
import java.util.List;

/** The GPUs' processor handles, socket by socket, in the order {@code amd-smi} numbers them (one socket per PCI device). */
final class AmdSmiHandles {

    /** A listing call that failed: which, and its status. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final String call;
        final int status;

        Refused(String call, int status) {
            super(call + " returned " + status, null, false, false);
            this.call = call;
            this.status = status;
        }
    }

    private interface HandleCall {
        int call(int[] count, long[] handles);
    }

    private AmdSmiHandles() {
    }

    /** Every GPU's processor handle; {@code beforeProcessors} runs before each socket's listing (a step of opening). */
    static List<Long> gpus(Runnable beforeProcessors) throws Refused {
        List<Long> out = new ArrayList<>();
        for (long socket : list("amdsmi_get_socket_handles", AmdSmiNative::amdsmi_get_socket_handles)) {
            beforeProcessors.run();
            out.addAll(list("amdsmi_get_processor_handles", (n, h) -> AmdSmiNative.amdsmi_get_processor_handles(socket, n, h)));
        }
        return out;
    }

    /** A count-then-fill call: first how many, then the handles. */
    private static List<Long> list(String name, HandleCall call) throws Refused {
        int[] count = new int[1];
        int rc = call.call(count, null);
        if (rc != AmdSmiStatus.SUCCESS) {
            throw new Refused(name, rc);
        }
        long[] out = new long[count[0]];
        if (out.length > 0) {
            rc = call.call(count, out);
            if (rc != AmdSmiStatus.SUCCESS) {
                throw new Refused(name, rc);
            }
        }
        List<Long> list = new ArrayList<>();
        for (int i = 0; i < Math.min(count[0], out.length); i++) {
            list.add(out[i]);
        }
        return list;
    }
}
