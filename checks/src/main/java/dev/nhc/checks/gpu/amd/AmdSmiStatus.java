package dev.nhc.checks.gpu.amd;

/** amdsmi_status_t codes nhc treats specially, and their names for messages. */
public final class AmdSmiStatus {
    public static final int SUCCESS = 0;
    public static final int INVAL = 1;
    public static final int NOT_SUPPORTED = 2;
    public static final int NOT_YET_IMPLEMENTED = 3;
    public static final int FAIL_LOAD_MODULE = 4;
    public static final int FAIL_LOAD_SYMBOL = 5;
    public static final int DRM_ERROR = 6;
    public static final int API_FAILED = 7;
    public static final int TIMEOUT = 8;
    public static final int RETRY = 9;
    public static final int NO_PERM = 10;
    public static final int INTERRUPT = 11;
    public static final int IO = 12;
    public static final int FILE_ERROR = 14;
    public static final int INIT_ERROR = 18;
    public static final int BUSY = 30;
    public static final int NOT_FOUND = 31;
    public static final int NOT_INIT = 32;
    public static final int DRIVER_NOT_LOADED = 34;
    public static final int NO_DATA = 40;
    public static final int INSUFFICIENT_SIZE = 41;
    public static final int UNEXPECTED_SIZE = 42;
    public static final int UNEXPECTED_DATA = 43;
    public static final int MAP_ERROR = 0xFFFFFFFE;
    public static final int UNKNOWN_ERROR = 0xFFFFFFFF;

    private AmdSmiStatus() {
    }

    public static String name(int code) {
        return switch (code) {
            case SUCCESS -> "AMDSMI_STATUS_SUCCESS";
            case INVAL -> "AMDSMI_STATUS_INVAL";
            case NOT_SUPPORTED -> "AMDSMI_STATUS_NOT_SUPPORTED";
            case NOT_YET_IMPLEMENTED -> "AMDSMI_STATUS_NOT_YET_IMPLEMENTED";
            case FAIL_LOAD_MODULE -> "AMDSMI_STATUS_FAIL_LOAD_MODULE";
            case FAIL_LOAD_SYMBOL -> "AMDSMI_STATUS_FAIL_LOAD_SYMBOL";
            case DRM_ERROR -> "AMDSMI_STATUS_DRM_ERROR";
            case API_FAILED -> "AMDSMI_STATUS_API_FAILED";
            case TIMEOUT -> "AMDSMI_STATUS_TIMEOUT";
            case RETRY -> "AMDSMI_STATUS_RETRY";
            case NO_PERM -> "AMDSMI_STATUS_NO_PERM";
            case INTERRUPT -> "AMDSMI_STATUS_INTERRUPT";
            case IO -> "AMDSMI_STATUS_IO";
            case FILE_ERROR -> "AMDSMI_STATUS_FILE_ERROR";
            case INIT_ERROR -> "AMDSMI_STATUS_INIT_ERROR";
            case BUSY -> "AMDSMI_STATUS_BUSY";
            case NOT_FOUND -> "AMDSMI_STATUS_NOT_FOUND";
            case NOT_INIT -> "AMDSMI_STATUS_NOT_INIT";
            case DRIVER_NOT_LOADED -> "AMDSMI_STATUS_DRIVER_NOT_LOADED";
            case NO_DATA -> "AMDSMI_STATUS_NO_DATA";
            case INSUFFICIENT_SIZE -> "AMDSMI_STATUS_INSUFFICIENT_SIZE";
            case UNEXPECTED_SIZE -> "AMDSMI_STATUS_UNEXPECTED_SIZE";
            case UNEXPECTED_DATA -> "AMDSMI_STATUS_UNEXPECTED_DATA";
            case MAP_ERROR -> "AMDSMI_STATUS_MAP_ERROR";
            case UNKNOWN_ERROR -> "AMDSMI_STATUS_UNKNOWN_ERROR";
            default -> "status " + Integer.toUnsignedString(code);
        };
    }

    /** This GPU has no such value (or this library cannot read it): the field is left out. */
    public static boolean absent(int code) {
        return code == NOT_SUPPORTED || code == NOT_YET_IMPLEMENTED;
    }

    /**
     * The library cannot find a device it handed out a handle for: the GPU is gone. AMD SMI has no
     * GPU_IS_LOST; a GPU whose PCI device vanished is caught by {@link AmdSmiGpu} from the bus.
     */
    public static boolean gpuLost(int code) {
        return code == NOT_FOUND;
    }
}
