package dev.nhc.checks.gpu.nvml;

/** nvmlReturn_t codes nhc treats specially, and their names for messages. */
public final class NvmlReturn {
    public static final int SUCCESS = 0;
    public static final int UNINITIALIZED = 1;
    public static final int INVALID_ARGUMENT = 2;
    public static final int NOT_SUPPORTED = 3;
    public static final int NO_PERMISSION = 4;
    public static final int NOT_FOUND = 6;
    public static final int INSUFFICIENT_SIZE = 7;
    public static final int DRIVER_NOT_LOADED = 9;
    public static final int TIMEOUT = 10;
    public static final int LIBRARY_NOT_FOUND = 12;
    public static final int FUNCTION_NOT_FOUND = 13;
    public static final int CORRUPTED_INFOROM = 14;
    public static final int GPU_IS_LOST = 15;
    public static final int RESET_REQUIRED = 16;
    public static final int LIB_RM_VERSION_MISMATCH = 18;
    public static final int NO_DATA = 21;
    public static final int ARGUMENT_VERSION_MISMATCH = 25;
    public static final int NOT_READY = 27;
    public static final int UNKNOWN = 999;

    private NvmlReturn() {
    }

    public static String name(int code) {
        return switch (code) {
            case SUCCESS -> "SUCCESS";
            case UNINITIALIZED -> "UNINITIALIZED";
            case INVALID_ARGUMENT -> "INVALID_ARGUMENT";
            case NOT_SUPPORTED -> "NOT_SUPPORTED";
            case NO_PERMISSION -> "NO_PERMISSION";
            case NOT_FOUND -> "NOT_FOUND";
            case INSUFFICIENT_SIZE -> "INSUFFICIENT_SIZE";
            case DRIVER_NOT_LOADED -> "DRIVER_NOT_LOADED";
            case TIMEOUT -> "TIMEOUT";
            case LIBRARY_NOT_FOUND -> "LIBRARY_NOT_FOUND";
            case FUNCTION_NOT_FOUND -> "FUNCTION_NOT_FOUND";
            case CORRUPTED_INFOROM -> "CORRUPTED_INFOROM";
            case GPU_IS_LOST -> "GPU_IS_LOST";
            case RESET_REQUIRED -> "RESET_REQUIRED";
            case LIB_RM_VERSION_MISMATCH -> "LIB_RM_VERSION_MISMATCH";
            case NO_DATA -> "NO_DATA";
            case ARGUMENT_VERSION_MISMATCH -> "ARGUMENT_VERSION_MISMATCH";
            case NOT_READY -> "NOT_READY";
            case UNKNOWN -> "UNKNOWN";
            default -> "error " + code;
        };
    }

    /** The GPU is gone until it is reset or the node rebooted. */
    public static boolean gpuLost(int code) {
        return code == GPU_IS_LOST || code == RESET_REQUIRED;
    }
}
