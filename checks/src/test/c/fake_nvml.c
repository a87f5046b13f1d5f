/*
 * A stand-in for libnvidia-ml.so.1 that nhc's tests load through the real JNA binding.
 *
 * It exports the NVML symbols nhc calls, with NVML's names and C ABI, and answers them from a JSON
 * scenario named by the environment variable NHC_FAKE_NVML_SCENARIO, or else scenario.json beside
 * the library (schema: fake_nvml.md). The scenario is re-read on every nvmlInit_v2, so one JVM can switch scenarios by rewriting the file.
 * A call the scenario gives no value for answers NVML_ERROR_NOT_SUPPORTED, like a GPU without
 * that counter. Each call can be given a return code and a delay (to simulate a hung GPU).
 *
 * Device handles point into a static array that is never freed: a call abandoned by nhc while it
 * sleeps in a delay may wake after the next nvmlInit_v2 and must still find valid memory.
 */
#include "fake_scenario.h"
#include <pthread.h>

#define EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NO_PERMISSION = 4, NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7, NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12, NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14, NVML_ERROR_GPU_IS_LOST = 15, NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18, NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25, NVML_ERROR_NOT_READY = 27, NVML_ERROR_UNKNOWN = 999
};

#define MAX_GPUS 64
#define MAX_LINKS 36
#define MAX_TEXT 96

/* ---------------------------------------------------------------- the calls a scenario can name */

enum call_id {
    C_FABRIC_INFO, C_FABRIC_INFO_V,
    C_INIT, C_SHUTDOWN, C_DRIVER_VERSION, C_COUNT, C_HANDLE, C_NAME, C_UUID, C_PCI, C_PERSISTENCE,
    C_ECC_MODE, C_TOTAL_ECC, C_MEMORY_ERROR, C_REMAPPED_ROWS, C_RETIRED_PAGES, C_RETIRED_PENDING,
    C_CURR_GEN, C_CURR_WIDTH, C_MAX_GEN, C_MAX_WIDTH, C_REPLAY, C_NVLINK_STATE, C_NVLINK_ERRORS,
    C_TEMPERATURE, C_TEMP_THRESHOLD, C_CLOCK_EVENTS, C_POWER_USAGE, C_POWER_LIMIT, C_PSTATE, C_UTILIZATION, C_FIELD_VALUES,
    C_EVENT_CREATE, C_REGISTER_EVENTS, C_EVENT_WAIT, C_EVENT_FREE, C_COUNT_OF_CALLS
};

static const char *CALL_NAMES[C_COUNT_OF_CALLS] = {
    "nvmlDeviceGetGpuFabricInfo", "nvmlDeviceGetGpuFabricInfoV",
    "nvmlInit_v2", "nvmlShutdown", "nvmlSystemGetDriverVersion", "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetPersistenceMode", "nvmlDeviceGetEccMode", "nvmlDeviceGetTotalEccErrors",
    "nvmlDeviceGetMemoryErrorCounter", "nvmlDeviceGetRemappedRows", "nvmlDeviceGetRetiredPages_v2",
    "nvmlDeviceGetRetiredPagesPendingStatus", "nvmlDeviceGetCurrPcieLinkGeneration",
    "nvmlDeviceGetCurrPcieLinkWidth", "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth",
    "nvmlDeviceGetPcieReplayCounter", "nvmlDeviceGetNvLinkState", "nvmlDeviceGetNvLinkErrorCounter",
    "nvmlDeviceGetTemperature", "nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetCurrentClocksEventReasons",
    "nvmlDeviceGetPowerUsage", "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPerformanceState",
    "nvmlDeviceGetUtilizationRates", "nvmlDeviceGetFieldValues",
    "nvmlEventSetCreate", "nvmlDeviceRegisterEvents", "nvmlEventSetWait_v2", "nvmlEventSetFree"
};

/* ---------------------------------------------------------------- the scenario, once loaded */

/* ECC counters by [counter type: volatile 0, aggregate 1][error type: corrected 0, uncorrected 1] */
#define LOCATIONS 8
static const char *LOCATION_NAMES[LOCATIONS] = {"l1", "l2", "dram", "register_file", "texture", "shm", "cbu", "sram"};

typedef struct {
    int present;
    opt_u64 active, replay, recovery, crc_flit, crc_data, ecc_data;
} fake_link;

typedef struct {
    int index;
    char name[MAX_TEXT], uuid[MAX_TEXT], bus_id[32];
    int has_name, has_uuid, has_pci;
    opt_u64 pci_device_id, pci_subsystem_id;
    opt_u64 persistence, ecc_current, ecc_pending;
    opt_u64 ecc_total[2][2];
    opt_u64 ecc_at[2][2][LOCATIONS];
    opt_u64 remap_corr, remap_unc, remap_pending, remap_failure;
    int has_remap;
    /* NVLink fabric registration (nvmlGpuFabricInfo); absent answers NOT_SUPPORTED */
    int has_fabric;
    opt_u64 fabric_state, fabric_status, fabric_clique, fabric_health_mask, fabric_health_summary, fabric_struct_version;
    unsigned char fabric_uuid[16];
    opt_u64 retired_sbe, retired_dbe, retired_pending;
    opt_u64 curr_gen, curr_width, max_gen, max_width, replay;
    int link_count;
    fake_link links[MAX_LINKS];
    opt_u64 temperature, memory_temperature;
    opt_u64 thresholds[4];
    opt_u64 clock_events, power_usage, power_limit;
    opt_u64 pstate, util_gpu, util_memory;
    int ret[C_COUNT_OF_CALLS];       /* -1 = behave normally */
    long delay_ms[C_COUNT_OF_CALLS];
} fake_gpu;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fake_gpu gpus[MAX_GPUS];
static int gpu_count;
static char driver_version[MAX_TEXT];
static int has_driver_version;
static int system_ret[C_COUNT_OF_CALLS];
static long system_delay_ms[C_COUNT_OF_CALLS];
static int init_count;

/* ---------------------------------------------------------------- scenario → structs */

static int read_ecc(loader *l, const jvalue *v, fake_gpu *g) {
    if (!want(l, v, J_OBJECT, "ecc")) {
        return 0;
    }
    static const char *counters[] = {"volatile", "aggregate"};
    static const char *types[] = {"corrected", "uncorrected"};
    for (int i = 0; i < v->count; i++) {
        const char *key = v->keys[i];
        opt_u64 *slot = NULL;
        char name[64];
        for (int c = 0; c < 2 && !slot; c++) {
            for (int t = 0; t < 2 && !slot; t++) {
                snprintf(name, sizeof name, "%s_%s", counters[c], types[t]);
                if (strcmp(name, key) == 0) {
                    slot = &g->ecc_total[c][t];
                }
                for (int loc = 0; loc < LOCATIONS && !slot; loc++) {
                    snprintf(name, sizeof name, "%s_%s_%s", counters[c], LOCATION_NAMES[loc], types[t]);
                    if (strcmp(name, key) == 0) {
                        slot = &g->ecc_at[c][t][loc];
                    }
                }
            }
        }
        if (!slot) {
            return lfail(l, v->items[i], "unknown key \"%s\" in ecc (expected volatile|aggregate_[LOCATION_]corrected|uncorrected, "
                                         "LOCATION one of l1 l2 dram register_file texture shm cbu sram)", key);
        }
        if (!read_u64(l, v->items[i], key, slot)) {
            return 0;
        }
    }
    return 1;
}

/* "cluster_uuid": 32 hex digits, dashes anywhere, into 16 bytes. */
static int read_uuid(loader *l, const jvalue *u, unsigned char out[16]) {
    if (!want(l, u, J_STRING, "fabric.cluster_uuid")) {
        return 0;
    }
    int n = 0;
    for (const char *c = u->string; *c; c++) {
        if (*c == '-') {
            continue;
        }
        if (n == 16 || !isxdigit((unsigned char) c[0]) || !isxdigit((unsigned char) c[1])) {
            n = -1;
            break;
        }
        unsigned int byte;
        sscanf(c, "%2x", &byte);
        out[n++] = (unsigned char) byte;
        c++;
    }
    if (n != 16) {
        return lfail(l, u, "fabric.cluster_uuid must be 32 hex digits (dashes allowed), like 6b0f2a1e-0c3d-4e5f-8a9b-0c1d2e3f4a5b");
    }
    return 1;
}

/* "fabric": the GPU's fabric registration, as nvmlGpuFabricInfo holds it. */
static int read_fabric(loader *l, const jvalue *v, fake_gpu *g) {
    if (v->type == J_NULL) {
        g->has_fabric = 0;
        return 1;
    }
    if (!want(l, v, J_OBJECT, "fabric")) {
        return 0;
    }
    field f[] = {{"state", &g->fabric_state}, {"status", &g->fabric_status}, {"clique_id", &g->fabric_clique},
                 {"health_mask", &g->fabric_health_mask}, {"health_summary", &g->fabric_health_summary},
                 {"struct_version", &g->fabric_struct_version}};
    int n = (int) (sizeof f / sizeof f[0]);
    for (int i = 0; i < v->count; i++) {
        const char *k = v->keys[i];
        if (!strcmp(k, "cluster_uuid")) {
            if (!read_uuid(l, v->items[i], g->fabric_uuid)) {
                return 0;
            }
            continue;
        }
        int found = 0;
        for (int j = 0; j < n && !found; j++) {
            if (!strcmp(f[j].key, k)) {
                found = 1;
                if (!read_u64(l, v->items[i], k, f[j].slot)) {
                    return 0;
                }
            }
        }
        if (!found) {
            return lfail(l, v->items[i], "unknown key \"%s\" in fabric (known: state, status, clique_id, cluster_uuid, "
                                         "health_mask, health_summary, struct_version)", k);
        }
    }
    if (!g->fabric_state.present || g->fabric_state.v > 3) {
        return lfail(l, v, "fabric.state must be 0 to 3 (not supported, not started, in progress, completed)");
    }
    if (g->fabric_struct_version.present && (g->fabric_struct_version.v < 2 || g->fabric_struct_version.v > 3)) {
        return lfail(l, v, "fabric.struct_version must be 2 or 3 (the newest nvmlGpuFabricInfo struct the driver knows)");
    }
    g->has_fabric = 1;
    return 1;
}

static int read_gpu(loader *l, const jvalue *v, fake_gpu *g) {
    if (!want(l, v, J_OBJECT, "gpus[]")) {
        return 0;
    }
    for (int i = 0; i < v->count; i++) {
        const char *k = v->keys[i];
        const jvalue *x = v->items[i];
        int ok;
        if (!strcmp(k, "name")) {
            ok = read_text(l, x, k, g->name, sizeof g->name, &g->has_name);
        } else if (!strcmp(k, "uuid")) {
            ok = read_text(l, x, k, g->uuid, sizeof g->uuid, &g->has_uuid);
        } else if (!strcmp(k, "pci_bus_id")) {
            ok = read_text(l, x, k, g->bus_id, sizeof g->bus_id, &g->has_pci);
        } else if (!strcmp(k, "pci_device_id")) {
            ok = read_u64(l, x, k, &g->pci_device_id);
        } else if (!strcmp(k, "pci_subsystem_id")) {
            ok = read_u64(l, x, k, &g->pci_subsystem_id);
        } else if (!strcmp(k, "persistence_mode")) {
            ok = read_u64(l, x, k, &g->persistence);
        } else if (!strcmp(k, "ecc_mode")) {
            field f[] = {{"current", &g->ecc_current}, {"pending", &g->ecc_pending}};
            ok = read_fields(l, x, "ecc_mode", f, 2);
        } else if (!strcmp(k, "ecc")) {
            ok = read_ecc(l, x, g);
        } else if (!strcmp(k, "remapped_rows")) {
            field f[] = {{"correctable", &g->remap_corr}, {"uncorrectable", &g->remap_unc},
                         {"pending", &g->remap_pending}, {"failure", &g->remap_failure}};
            ok = read_fields(l, x, "remapped_rows", f, 4);
            g->has_remap = g->remap_corr.present || g->remap_unc.present || g->remap_pending.present || g->remap_failure.present;
        } else if (!strcmp(k, "retired_pages")) {
            field f[] = {{"sbe", &g->retired_sbe}, {"dbe", &g->retired_dbe}, {"pending", &g->retired_pending}};
            ok = read_fields(l, x, "retired_pages", f, 3);
        } else if (!strcmp(k, "fabric")) {
            ok = read_fabric(l, x, g);
        } else if (!strcmp(k, "pcie")) {
            field f[] = {{"gen", &g->curr_gen}, {"width", &g->curr_width}, {"max_gen", &g->max_gen},
                         {"max_width", &g->max_width}, {"replay_counter", &g->replay}};
            ok = read_fields(l, x, "pcie", f, 5);
        } else if (!strcmp(k, "nvlinks")) {
            ok = want(l, x, J_ARRAY, k);
            if (ok && x->count > MAX_LINKS) {
                ok = lfail(l, x, "at most %d nvlinks", MAX_LINKS);
            }
            for (int n = 0; ok && n < x->count; n++) {
                fake_link *link = &g->links[n];
                link->present = 1;
                field f[] = {{"active", &link->active}, {"replay", &link->replay}, {"recovery", &link->recovery},
                             {"crc_flit", &link->crc_flit}, {"crc_data", &link->crc_data}, {"ecc_data", &link->ecc_data}};
                ok = read_fields(l, x->items[n], "nvlinks[]", f, 6);
            }
            g->link_count = ok ? x->count : 0;
        } else if (!strcmp(k, "temperature")) {
            ok = read_u64(l, x, k, &g->temperature);
        } else if (!strcmp(k, "memory_temperature")) {
            ok = read_u64(l, x, k, &g->memory_temperature);
        } else if (!strcmp(k, "thresholds")) {
            field f[] = {{"shutdown", &g->thresholds[0]}, {"slowdown", &g->thresholds[1]},
                         {"mem_max", &g->thresholds[2]}, {"gpu_max", &g->thresholds[3]}};
            ok = read_fields(l, x, "thresholds", f, 4);
        } else if (!strcmp(k, "clocks_event_reasons")) {
            ok = read_u64(l, x, k, &g->clock_events);
        } else if (!strcmp(k, "power_usage_mw")) {
            ok = read_u64(l, x, k, &g->power_usage);
        } else if (!strcmp(k, "enforced_power_limit_mw")) {
            ok = read_u64(l, x, k, &g->power_limit);
        } else if (!strcmp(k, "performance_state")) {
            ok = read_u64(l, x, k, &g->pstate);
        } else if (!strcmp(k, "utilization")) {
            field f[] = {{"gpu", &g->util_gpu}, {"memory", &g->util_memory}};
            ok = read_fields(l, x, "utilization", f, 2);
        } else if (!strcmp(k, "returns")) {
            ok = read_call_map(l, x, "returns", CALL_NAMES, C_COUNT_OF_CALLS, "NVML", g->ret, NULL);
        } else if (!strcmp(k, "delays_ms")) {
            ok = read_call_map(l, x, "delays_ms", CALL_NAMES, C_COUNT_OF_CALLS, "NVML", NULL, g->delay_ms);
        } else {
            ok = lfail(l, x, "unknown key \"%s\" in gpus[%d]", k, g->index);
        }
        if (!ok) {
            return 0;
        }
    }
    return 1;
}

/* Loads the scenario into the globals; on error leaves a message in l->error. Caller holds lock. */
static void load_scenario(loader *l) {
    jvalue *root = read_scenario(l, "NHC_FAKE_NVML_SCENARIO");
    if (!root) {
        return;
    }

    memset(gpus, 0, sizeof gpus);
    gpu_count = 0;
    has_driver_version = 0;
    for (int c = 0; c < C_COUNT_OF_CALLS; c++) {
        system_ret[c] = -1;
        system_delay_ms[c] = 0;
        for (int i = 0; i < MAX_GPUS; i++) {
            gpus[i].ret[c] = -1;
        }
    }
    for (int i = 0; i < MAX_GPUS; i++) {
        gpus[i].index = i;
    }

    if (want(l, root, J_OBJECT, "the scenario")) {
        for (int i = 0; i < root->count && !l->error[0]; i++) {
            const char *k = root->keys[i];
            const jvalue *x = root->items[i];
            if (!strcmp(k, "driver_version")) {
                read_text(l, x, k, driver_version, sizeof driver_version, &has_driver_version);
            } else if (!strcmp(k, "returns")) {
                read_call_map(l, x, k, CALL_NAMES, C_COUNT_OF_CALLS, "NVML", system_ret, NULL);
            } else if (!strcmp(k, "delays_ms")) {
                read_call_map(l, x, k, CALL_NAMES, C_COUNT_OF_CALLS, "NVML", NULL, system_delay_ms);
            } else if (!strcmp(k, "gpus")) {
                if (want(l, x, J_ARRAY, k)) {
                    if (x->count > MAX_GPUS) {
                        lfail(l, x, "at most %d gpus", MAX_GPUS);
                    }
                    for (int g = 0; g < x->count && !l->error[0]; g++) {
                        read_gpu(l, x->items[g], &gpus[g]);
                    }
                    gpu_count = x->count;
                }
            } else if (!strcmp(k, "description") || !strcmp(k, "source")) {
                /* free text for people reading the scenario */
            } else {
                lfail(l, x, "unknown top-level key \"%s\" (known: description, source, driver_version, returns, delays_ms, gpus)", k);
            }
        }
    }
    if (l->error[0]) {
        gpu_count = 0;
    }
    jfree(root);
}

/* ---------------------------------------------------------------- call plumbing */

/* The scenario's override for a system-level call: -1 to proceed normally. */
static int system_call(int call) {
    pthread_mutex_lock(&lock);
    long delay = system_delay_ms[call];
    int ret = system_ret[call];
    pthread_mutex_unlock(&lock);
    sleep_ms(delay);
    return ret;
}

/* Resolves a handle and applies the GPU's delay and return override for this call. */
static nvmlReturn_t device_call(void *handle, int call, fake_gpu **out) {
    fake_gpu *g = (fake_gpu *) handle;
    if (g < gpus || g >= gpus + MAX_GPUS || ((char *) g - (char *) gpus) % sizeof(fake_gpu) != 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&lock);
    int initialised = init_count > 0;
    int exists = g->index < gpu_count;
    long delay = g->delay_ms[call];
    int ret = g->ret[call];
    pthread_mutex_unlock(&lock);
    if (!initialised) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (!exists) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    sleep_ms(delay);
    if (ret >= 0 && ret != NVML_SUCCESS) {
        return ret;
    }
    *out = g;
    return NVML_SUCCESS;
}

static nvmlReturn_t put_uint(const opt_u64 *o, unsigned int *out) {
    if (!out) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!o->present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *out = (unsigned int) o->v;
    return NVML_SUCCESS;
}

static nvmlReturn_t put_u64(const opt_u64 *o, unsigned long long *out) {
    if (!out) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!o->present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *out = o->v;
    return NVML_SUCCESS;
}

static nvmlReturn_t put_text(int present, const char *value, char *out, unsigned int length) {
    if (!out) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (strlen(value) + 1 > length) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    strcpy(out, value);
    return NVML_SUCCESS;
}

#define DEVICE_CALL(handle, call)                          \
    fake_gpu *g = NULL;                                    \
    nvmlReturn_t r_ = device_call((handle), (call), &g);   \
    if (r_ != NVML_SUCCESS) {                              \
        return r_;                                         \
    }

/* ---------------------------------------------------------------- start / stop */

EXPORT nvmlReturn_t nvmlInit_v2(void) {
    pthread_mutex_lock(&lock);
    loader l = {0};
    load_scenario(&l);
    if (l.error[0]) {
        pthread_mutex_unlock(&lock);
        fprintf(stderr, "fake-nvml: %s\n", l.error);
        return NVML_ERROR_UNKNOWN;
    }
    /* the init delay and override come from the scenario just loaded */
    long delay = system_delay_ms[C_INIT];
    int ret = system_ret[C_INIT];
    pthread_mutex_unlock(&lock);
    sleep_ms(delay);
    if (ret > 0) {
        return ret;
    }
    pthread_mutex_lock(&lock);
    init_count++;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void) {
    int ret = system_call(C_SHUTDOWN);
    if (ret > 0) {
        return ret;
    }
    pthread_mutex_lock(&lock);
    if (init_count == 0) {
        pthread_mutex_unlock(&lock);
        return NVML_ERROR_UNINITIALIZED;
    }
    init_count--;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
        case NVML_SUCCESS: return "Success";
        case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
        case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
        case NVML_ERROR_NOT_FOUND: return "Not Found";
        case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
        case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
        case NVML_ERROR_TIMEOUT: return "Timeout";
        case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
        case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
        case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
        case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
        case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
        case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
        case NVML_ERROR_NO_DATA: return "No data";
        case NVML_ERROR_NOT_READY: return "System not ready";
        default: return "Unknown Error";
    }
}

static int ensure_init(void) {
    pthread_mutex_lock(&lock);
    int ok = init_count > 0;
    pthread_mutex_unlock(&lock);
    return ok;
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    int ret = system_call(C_DRIVER_VERSION);
    if (!ensure_init()) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (ret > 0) {
        return ret;
    }
    return put_text(has_driver_version, driver_version, version, length);
}

/* ---------------------------------------------------------------- inventory */

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    int ret = system_call(C_COUNT);
    if (!ensure_init()) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (ret > 0) {
        return ret;
    }
    if (!count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&lock);
    *count = (unsigned int) gpu_count;
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
    if (!device) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!ensure_init()) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (index >= MAX_GPUS) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    DEVICE_CALL(&gpus[index], C_HANDLE);
    *device = g;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(void *device, char *name, unsigned int length) {
    DEVICE_CALL(device, C_NAME);
    return put_text(g->has_name, g->name, name, length);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(void *device, char *uuid, unsigned int length) {
    DEVICE_CALL(device, C_UUID);
    return put_text(g->has_uuid, g->uuid, uuid, length);
}

typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(void *device, nvmlPciInfo_t *pci) {
    DEVICE_CALL(device, C_PCI);
    if (!pci) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_pci) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    memset(pci, 0, sizeof *pci);
    unsigned int domain = 0, bus = 0, dev = 0, fn = 0;
    sscanf(g->bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn);
    pci->domain = domain;
    pci->bus = bus;
    pci->device = dev;
    pci->pciDeviceId = (unsigned int) g->pci_device_id.v;
    pci->pciSubSystemId = (unsigned int) g->pci_subsystem_id.v;
    snprintf(pci->busId, sizeof pci->busId, "%s", g->bus_id);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04x:%02x:%02x.%x", domain & 0xffff, bus, dev, fn);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(void *device, int *mode) {
    DEVICE_CALL(device, C_PERSISTENCE);
    return put_uint(&g->persistence, (unsigned int *) mode);
}

/* ---------------------------------------------------------------- ECC and memory repair */

EXPORT nvmlReturn_t nvmlDeviceGetEccMode(void *device, int *current, int *pending) {
    DEVICE_CALL(device, C_ECC_MODE);
    if (!current || !pending) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->ecc_current.present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *current = (int) g->ecc_current.v;
    *pending = (int) (g->ecc_pending.present ? g->ecc_pending.v : g->ecc_current.v);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(void *device, int errorType, int counterType, unsigned long long *count) {
    DEVICE_CALL(device, C_TOTAL_ECC);
    if (errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return put_u64(&g->ecc_total[counterType][errorType], count);
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(void *device, int errorType, int counterType, int location,
                                                    unsigned long long *count) {
    DEVICE_CALL(device, C_MEMORY_ERROR);
    if (errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1 || location < 0 || location >= LOCATIONS) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return put_u64(&g->ecc_at[counterType][errorType][location], count);
}

EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(void *device, unsigned int *corrRows, unsigned int *uncRows,
                                              unsigned int *isPending, unsigned int *failureOccurred) {
    DEVICE_CALL(device, C_REMAPPED_ROWS);
    if (!corrRows || !uncRows || !isPending || !failureOccurred) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_remap) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *corrRows = (unsigned int) g->remap_corr.v;
    *uncRows = (unsigned int) g->remap_unc.v;
    *isPending = (unsigned int) g->remap_pending.v;
    *failureOccurred = (unsigned int) g->remap_failure.v;
    return NVML_SUCCESS;
}

/* Reports the count; addresses are synthetic (NVML fills up to *pageCount entries, or says how many it needs). */
EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages_v2(void *device, int cause, unsigned int *pageCount,
                                                 unsigned long long *addresses, unsigned long long *timestamps) {
    DEVICE_CALL(device, C_RETIRED_PAGES);
    if (!pageCount || cause < 0 || cause > 1) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const opt_u64 *o = cause == 0 ? &g->retired_sbe : &g->retired_dbe;
    if (!o->present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    unsigned int have = (unsigned int) o->v;
    unsigned int room = *pageCount;
    *pageCount = have;
    if (room == 0) {
        return NVML_SUCCESS;                 /* a size query */
    }
    if (room < have) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned int i = 0; i < have; i++) {
        if (addresses) {
            addresses[i] = 0x1000ULL * (i + 1);
        }
        if (timestamps) {
            timestamps[i] = 1700000000ULL + i;
        }
    }
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(void *device, int *isPending) {
    DEVICE_CALL(device, C_RETIRED_PENDING);
    return put_uint(&g->retired_pending, (unsigned int *) isPending);
}

/* ---------------------------------------------------------------- PCIe and NVLink */

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(void *device, unsigned int *v) {
    DEVICE_CALL(device, C_CURR_GEN);
    return put_uint(&g->curr_gen, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(void *device, unsigned int *v) {
    DEVICE_CALL(device, C_CURR_WIDTH);
    return put_uint(&g->curr_width, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(void *device, unsigned int *v) {
    DEVICE_CALL(device, C_MAX_GEN);
    return put_uint(&g->max_gen, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(void *device, unsigned int *v) {
    DEVICE_CALL(device, C_MAX_WIDTH);
    return put_uint(&g->max_width, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(void *device, unsigned int *v) {
    DEVICE_CALL(device, C_REPLAY);
    return put_uint(&g->replay, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(void *device, unsigned int link, int *isActive) {
    DEVICE_CALL(device, C_NVLINK_STATE);
    if (link >= MAX_LINKS) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->links[link].present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return put_uint(&g->links[link].active, (unsigned int *) isActive);
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(void *device, unsigned int link, int counter, unsigned long long *value) {
    DEVICE_CALL(device, C_NVLINK_ERRORS);
    if (link >= MAX_LINKS || counter < 0 || counter > 4) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    fake_link *l = &g->links[link];
    if (!l->present) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    const opt_u64 *slots[] = {&l->replay, &l->recovery, &l->crc_flit, &l->crc_data, &l->ecc_data};
    return put_u64(slots[counter], value);
}

/* ---------------------------------------------------------------- NVLink fabric */

typedef struct {
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
} nvmlGpuFabricInfo_t;

typedef struct {
    unsigned int version;
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
    unsigned int healthMask;
    unsigned char healthSummary;    /* v3 only */
} nvmlGpuFabricInfo_v3_t;

_Static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t is 28 bytes");
_Static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40, "nvmlGpuFabricInfo_v3_t is 40 bytes");

#define FABRIC_V2_SIZE 36u          /* sizeof(nvmlGpuFabricInfo_v2_t): v3 without healthSummary */
#define FABRIC_V2 (FABRIC_V2_SIZE | (2u << 24))
#define FABRIC_V3 ((unsigned int) sizeof(nvmlGpuFabricInfo_v3_t) | (3u << 24))

EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(void *device, nvmlGpuFabricInfo_t *info) {
    DEVICE_CALL(device, C_FABRIC_INFO);
    if (!info) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_fabric) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    memcpy(info->clusterUuid, g->fabric_uuid, sizeof info->clusterUuid);
    info->status = (nvmlReturn_t) g->fabric_status.v;
    info->cliqueId = (unsigned int) g->fabric_clique.v;
    info->state = (unsigned char) g->fabric_state.v;
    return NVML_SUCCESS;
}

/* Writes v2 or v3 as the caller's version field asks; another version is ARGUMENT_VERSION_MISMATCH, as with NVML. */
EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(void *device, nvmlGpuFabricInfo_v3_t *info) {
    DEVICE_CALL(device, C_FABRIC_INFO_V);
    if (!info) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (!g->has_fabric) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    unsigned int version = info->version;
    int knows_v3 = !g->fabric_struct_version.present || g->fabric_struct_version.v >= 3;
    if (version != FABRIC_V2 && !(version == FABRIC_V3 && knows_v3)) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    memset(info, 0, version == FABRIC_V3 ? sizeof *info : FABRIC_V2_SIZE);
    info->version = version;
    memcpy(info->clusterUuid, g->fabric_uuid, sizeof info->clusterUuid);
    info->status = (nvmlReturn_t) g->fabric_status.v;
    info->cliqueId = (unsigned int) g->fabric_clique.v;
    info->state = (unsigned char) g->fabric_state.v;
    info->healthMask = (unsigned int) g->fabric_health_mask.v;
    if (version == FABRIC_V3) {
        info->healthSummary = (unsigned char) g->fabric_health_summary.v;
    }
    return NVML_SUCCESS;
}

/* ---------------------------------------------------------------- thermal and power */

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(void *device, int sensor, unsigned int *temp) {
    DEVICE_CALL(device, C_TEMPERATURE);
    if (sensor != 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return put_uint(&g->temperature, temp);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(void *device, int type, unsigned int *temp) {
    DEVICE_CALL(device, C_TEMP_THRESHOLD);
    if (type < 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (type > 3) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return put_uint(&g->thresholds[type], temp);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *reasons) {
    DEVICE_CALL(device, C_CLOCK_EVENTS);
    return put_u64(&g->clock_events, reasons);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(void *device, unsigned int *mw) {
    DEVICE_CALL(device, C_POWER_USAGE);
    return put_uint(&g->power_usage, mw);
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned int *mw) {
    DEVICE_CALL(device, C_POWER_LIMIT);
    return put_uint(&g->power_limit, mw);
}

EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(void *device, int *pState) {
    DEVICE_CALL(device, C_PSTATE);
    return put_uint(&g->pstate, (unsigned int *) pState);
}

typedef struct {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(void *device, nvmlUtilization_t *utilization) {
    DEVICE_CALL(device, C_UTILIZATION);
    if (!utilization) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = put_uint(&g->util_gpu, &utilization->gpu);
    if (r == NVML_SUCCESS) {
        utilization->memory = g->util_memory.present ? (unsigned int) g->util_memory.v : 0;
    }
    return r;
}

typedef struct {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    union { double d; unsigned int ui; unsigned long ul; unsigned long long ull; long long sll; int si; } value;
} nvmlFieldValue_t;

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(void *device, int valuesCount, nvmlFieldValue_t *values) {
    DEVICE_CALL(device, C_FIELD_VALUES);
    if (valuesCount < 0 || (valuesCount > 0 && !values)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (int i = 0; i < valuesCount; i++) {
        nvmlFieldValue_t *f = &values[i];
        const opt_u64 *o = NULL;
        switch (f->fieldId) {
            case 82: o = &g->memory_temperature; break;     /* NVML_FI_DEV_MEMORY_TEMP */
            case 94: o = &g->replay; break;                  /* NVML_FI_DEV_PCIE_REPLAY_COUNTER */
            case 142: o = &g->remap_corr; break;             /* NVML_FI_DEV_REMAPPED_COR */
            case 143: o = &g->remap_unc; break;              /* NVML_FI_DEV_REMAPPED_UNC */
            case 144: o = &g->remap_pending; break;          /* NVML_FI_DEV_REMAPPED_PENDING */
            case 145: o = &g->remap_failure; break;          /* NVML_FI_DEV_REMAPPED_FAILURE */
            default: break;
        }
        f->timestamp = (long long) now.tv_sec * 1000000LL + now.tv_nsec / 1000;
        f->latencyUsec = 0;
        if (!o || !o->present) {
            f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            continue;
        }
        f->nvmlReturn = NVML_SUCCESS;
        f->valueType = 1; /* NVML_VALUE_TYPE_UNSIGNED_INT */
        f->value.ull = 0;
        f->value.ui = (unsigned int) o->v;
    }
    return NVML_SUCCESS;
}

/* ---------------------------------------------------------------- XID events, from a file */

typedef struct {
    void *device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

typedef struct {
    int registered[MAX_GPUS];
    long offset;       /* bytes of NHC_FAKE_NVML_EVENTS already delivered or skipped */
} fake_event_set;

EXPORT nvmlReturn_t nvmlEventSetCreate(void **set) {
    int ret = system_call(C_EVENT_CREATE);
    if (!ensure_init()) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (ret > 0) {
        return ret;
    }
    if (!set) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    fake_event_set *s = calloc(1, sizeof *s);
    /* Events written before the set existed are not delivered, as with the real driver. */
    const char *path = getenv("NHC_FAKE_NVML_EVENTS");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f) {
        fseek(f, 0, SEEK_END);
        s->offset = ftell(f);
        fclose(f);
    }
    *set = s;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(void *device, unsigned long long eventTypes, void *set) {
    DEVICE_CALL(device, C_REGISTER_EVENTS);
    if (!set) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if ((eventTypes & 0x8ULL) == 0) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    ((fake_event_set *) set)->registered[g->index] = 1;
    return NVML_SUCCESS;
}

/* Reads the next complete line after the set's offset; 1 if one was read. */
static int next_event_line(fake_event_set *s, char *line, size_t cap) {
    const char *path = getenv("NHC_FAKE_NVML_EVENTS");
    if (!path) {
        return 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        return 0;
    }
    int got = 0;
    if (fseek(f, s->offset, SEEK_SET) == 0 && fgets(line, (int) cap, f) != NULL) {
        size_t n = strlen(line);
        if (n > 0 && line[n - 1] == '\n') {   /* a half-written line waits for its newline */
            s->offset += (long) n;
            got = 1;
        }
    }
    fclose(f);
    return got;
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(void *set, nvmlEventData_t *data, unsigned int timeoutms) {
    int ret = system_call(C_EVENT_WAIT);
    if (!ensure_init()) {
        return NVML_ERROR_UNINITIALIZED;
    }
    if (ret > 0) {
        return ret;
    }
    if (!set || !data) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    fake_event_set *s = set;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        char line[256];
        while (next_event_line(s, line, sizeof line)) {
            int gpu = -1;
            unsigned long long xid = 0;
            if (sscanf(line, " gpu=%d xid=%llu", &gpu, &xid) != 2 || gpu < 0 || gpu >= MAX_GPUS) {
                fprintf(stderr, "fake-nvml: ignoring event line (expected 'gpu=N xid=M'): %s", line);
                continue;
            }
            if (!s->registered[gpu]) {
                continue;
            }
            memset(data, 0, sizeof *data);
            data->device = &gpus[gpu];
            data->eventType = 0x8ULL;
            data->eventData = xid;
            data->gpuInstanceId = 0xFFFFFFFFu;
            data->computeInstanceId = 0xFFFFFFFFu;
            return NVML_SUCCESS;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
        if (elapsed >= (long) timeoutms) {
            return NVML_ERROR_TIMEOUT;
        }
        sleep_ms(timeoutms - elapsed < 10 ? timeoutms - elapsed : 10);
    }
}

EXPORT nvmlReturn_t nvmlEventSetFree(void *set) {
    int ret = system_call(C_EVENT_FREE);
    if (ret > 0) {
        return ret;
    }
    if (!set) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    free(set);
    return NVML_SUCCESS;
}
