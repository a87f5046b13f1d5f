/*
 * A stand-in for libamd_smi.so (AMD SMI, the C library under amd-smi) that nhc's tests load
 * through the real JNA binding.
 *
 * It exports the AMD SMI symbols nhc calls, with AMD SMI's names and C ABI (the struct layouts are
 * written out below and checked with _Static_assert against the sizes and offsets nhc reads), and
 * answers them from a JSON scenario named by NHC_FAKE_AMDSMI_SCENARIO, or else scenario.json
 * beside the library (schema: fake_amdsmi.md). The scenario is re-read on every amdsmi_init. A
 * value the scenario does not give answers AMDSMI_STATUS_NOT_SUPPORTED, as AMD SMI does for a GPU
 * without it. Each call can be given a status and a delay (to simulate a hung GPU).
 *
 * Processor handles point into a static array that is never freed: a call abandoned by nhc while
 * it sleeps in a delay may wake after the next amdsmi_init and must still find valid memory.
 */
#include "fake_scenario.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

typedef int amdsmi_status_t;
enum {
    AMDSMI_STATUS_SUCCESS = 0, AMDSMI_STATUS_INVAL = 1, AMDSMI_STATUS_NOT_SUPPORTED = 2, AMDSMI_STATUS_NO_PERM = 10,
    AMDSMI_STATUS_INIT_ERROR = 18, AMDSMI_STATUS_NOT_FOUND = 31, AMDSMI_STATUS_NOT_INIT = 32, AMDSMI_STATUS_DRIVER_NOT_LOADED = 34,
    AMDSMI_STATUS_NO_DATA = 40, AMDSMI_STATUS_INSUFFICIENT_SIZE = 41
};
#define AMDSMI_STATUS_UNKNOWN_ERROR ((amdsmi_status_t) 0xFFFFFFFF)

#define MAX_GPUS 64
#define MAX_TEXT 96
#define MAX_BAD_PAGES 512
#define XGMI_LINKS 8
#define RAS_BLOCKS 19

/* ---------------------------------------------------------------- AMD SMI's structs, as nhc reads them */

typedef struct {
    char market_name[256];
    uint32_t vendor_id;
    char vendor_name[64];
    uint32_t subvendor_id;
    uint64_t device_id;
    uint32_t rev_id;
    char asic_serial[32];
    uint32_t oam_id;
    uint32_t num_of_compute_units;
    uint64_t target_graphics_version;
    uint32_t reserved[15];
} asic_info_t;
_Static_assert(sizeof(asic_info_t) == 456, "amdsmi_asic_info_t is 456 bytes");

typedef struct {
    char name[64];
    char build_date[32];
    char part_number[64];
    char version[32];
    uint32_t reserved[16];
} vbios_info_t;
_Static_assert(sizeof(vbios_info_t) == 256 && offsetof(vbios_info_t, version) == 160, "amdsmi_vbios_info_t");

typedef struct {
    char driver_version[64];
    char driver_date[64];
    char driver_name[64];
} driver_info_t;
_Static_assert(sizeof(driver_info_t) == 192, "amdsmi_driver_info_t");

typedef struct {
    uint64_t correctable_count, uncorrectable_count, deferred_count;
    uint64_t reserved[5];
} error_count_t;
_Static_assert(sizeof(error_count_t) == 64, "amdsmi_error_count_t");

typedef struct {
    uint64_t page_address;
    uint64_t page_size;
    int status;
} page_record_t;
_Static_assert(sizeof(page_record_t) == 24 && offsetof(page_record_t, status) == 16, "amdsmi_retired_page_record_t");

typedef struct {
    struct {
        uint16_t max_pcie_width;
        uint32_t max_pcie_speed;
        uint32_t pcie_interface_version;
        int slot_type;
        uint64_t reserved[10];
    } pcie_static;
    struct {
        uint16_t pcie_width;
        uint32_t pcie_speed;
        uint32_t pcie_bandwidth;
        uint64_t pcie_replay_count;
        uint64_t pcie_l0_to_recovery_count;
        uint64_t pcie_replay_roll_over_count;
        uint64_t pcie_nak_sent_count;
        uint64_t pcie_nak_received_count;
        uint32_t pcie_lc_perf_other_end_recovery_count;
        uint64_t reserved[12];
    } pcie_metric;
    uint64_t reserved[32];
} pcie_info_t;
_Static_assert(sizeof(pcie_info_t) == 512, "amdsmi_pcie_info_t");
_Static_assert(offsetof(pcie_info_t, pcie_static.max_pcie_speed) == 4 && offsetof(pcie_info_t, pcie_static.pcie_interface_version) == 8,
               "pcie_static");
_Static_assert(offsetof(pcie_info_t, pcie_metric.pcie_width) == 96 && offsetof(pcie_info_t, pcie_metric.pcie_speed) == 100
               && offsetof(pcie_info_t, pcie_metric.pcie_replay_count) == 112
               && offsetof(pcie_info_t, pcie_metric.pcie_l0_to_recovery_count) == 120, "pcie_metric");

typedef struct {
    uint32_t gfx_activity, umc_activity, mm_activity;
    uint32_t reserved[13];
} engine_usage_t;
_Static_assert(sizeof(engine_usage_t) == 64, "amdsmi_engine_usage_t");

typedef struct {
    uint32_t current_socket_power, average_socket_power, gfx_voltage, soc_voltage, mem_voltage, power_limit;
    uint32_t reserved[11];
} power_info_t;
_Static_assert(sizeof(power_info_t) == 68, "amdsmi_power_info_t");

typedef struct {
    uint64_t power_cap, default_power_cap, dpm_cap, min_power_cap, max_power_cap;
    uint64_t reserved[3];
} power_cap_info_t;
_Static_assert(sizeof(power_cap_info_t) == 64, "amdsmi_power_cap_info_t");

typedef struct {
    uint64_t counters[13];
    uint8_t active_prochot_thrm, active_ppt_pwr, active_socket_thrm, active_vr_thrm, active_hbm_thrm;
    uint64_t reserved[30];
} violation_status_t;
_Static_assert(sizeof(violation_status_t) == 352 && offsetof(violation_status_t, active_prochot_thrm) == 104, "amdsmi_violation_status_t");

typedef struct {
    uint32_t total_links;
    int status[XGMI_LINKS];
    uint64_t reserved[7];
} xgmi_link_status_t;
_Static_assert(sizeof(xgmi_link_status_t) == 96 && offsetof(xgmi_link_status_t, status) == 4, "amdsmi_xgmi_link_status_t");

typedef struct {
    void *processor_handle;
    int event;
    char message[64];
} event_data_t;
_Static_assert(sizeof(event_data_t) == 80 && offsetof(event_data_t, event) == 8 && offsetof(event_data_t, message) == 12,
               "amdsmi_evt_notification_data_t");

/* ---------------------------------------------------------------- the calls a scenario can name */

enum call_id {
    C_INIT, C_SHUTDOWN, C_SOCKETS, C_PROCESSORS, C_BDF, C_UUID, C_ASIC, C_VBIOS, C_DRIVER, C_ECC_ENABLED, C_TOTAL_ECC, C_ECC_COUNT,
    C_BAD_PAGES, C_PCIE, C_ACTIVITY, C_XGMI_ERROR, C_XGMI_LINKS, C_TEMP, C_VIOLATIONS, C_POWER, C_POWER_CAP,
    C_EVENT_INIT, C_EVENT_MASK, C_EVENT_GET, C_EVENT_STOP, C_COUNT_OF_CALLS
};

static const char *CALL_NAMES[C_COUNT_OF_CALLS] = {
    "amdsmi_init", "amdsmi_shut_down", "amdsmi_get_socket_handles", "amdsmi_get_processor_handles", "amdsmi_get_gpu_device_bdf",
    "amdsmi_get_gpu_device_uuid", "amdsmi_get_gpu_asic_info", "amdsmi_get_gpu_vbios_info", "amdsmi_get_gpu_driver_info",
    "amdsmi_get_gpu_ecc_enabled", "amdsmi_get_gpu_total_ecc_count", "amdsmi_get_gpu_ecc_count", "amdsmi_get_gpu_bad_page_info",
    "amdsmi_get_pcie_info", "amdsmi_get_gpu_activity", "amdsmi_gpu_xgmi_error_status", "amdsmi_get_gpu_xgmi_link_status",
    "amdsmi_get_temp_metric", "amdsmi_get_violation_status", "amdsmi_get_power_info", "amdsmi_get_power_cap_info",
    "amdsmi_init_gpu_event_notification", "amdsmi_set_gpu_event_notification_mask", "amdsmi_get_gpu_event_notification",
    "amdsmi_stop_gpu_event_notification"
};

/* amdsmi_gpu_block_t by bit position, by AMD's names */
static const char *BLOCK_NAMES[RAS_BLOCKS] = {"UMC", "SDMA", "GFX", "MMHUB", "ATHUB", "PCIE_BIF", "HDP", "XGMI_WAFL", "DF", "SMN",
                                              "SEM", "MP0", "MP1", "FUSE", "MCA", "VCN", "JPEG", "IH", "MPIO"};

/* amdsmi_evt_notification_type_t by value (1..5) */
static const char *EVENT_NAMES[6] = {"NONE", "VMFAULT", "THERMAL_THROTTLE", "GPU_PRE_RESET", "GPU_POST_RESET", "RING_HANG"};

/* ---------------------------------------------------------------- the scenario, once loaded */

typedef struct {
    int index;
    char market_name[MAX_TEXT], uuid[MAX_TEXT], vbios_version[MAX_TEXT];
    int has_market_name, has_uuid, has_vbios;
    opt_u64 bdf;
    opt_u64 ecc_enabled;
    int has_ecc[RAS_BLOCKS];
    opt_u64 ecc[RAS_BLOCKS][3];     /* correctable, uncorrectable, deferred */
    int has_bad_pages, bad_page_count;
    int bad_page_status[MAX_BAD_PAGES];
    opt_u64 pcie_width, pcie_max_width, pcie_speed, pcie_max_speed, pcie_version, pcie_replays, pcie_recoveries;
    opt_u64 activity;
    opt_u64 xgmi_error_status;
    int link_count;                 /* -1: no XGMI link status (not supported) */
    int links[XGMI_LINKS];          /* 0 down, 1 up, 2 disabled */
    opt_u64 hotspot, vram, hotspot_critical, hotspot_emergency, vram_critical;
    int has_violations;
    opt_u64 prochot, ppt, socket_thermal, vr_thermal, hbm_thermal;
    opt_u64 current_socket_power, average_socket_power, power_cap_uw;
    int ret[C_COUNT_OF_CALLS];      /* -1 = behave normally */
    long delay_ms[C_COUNT_OF_CALLS];
    /* event notification, set by the calls */
    int events_init;
    uint64_t event_mask;
} fake_gpu;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fake_gpu gpus[MAX_GPUS];
static char sockets[MAX_GPUS];      /* one socket per GPU, as AMD SMI makes one per PCI device; handles point here */
static int gpu_count;
static char driver_version[MAX_TEXT];
static int has_driver_version;
static int system_ret[C_COUNT_OF_CALLS];
static long system_delay_ms[C_COUNT_OF_CALLS];
static int init_count;

static int read_call_overrides(loader *l, const jvalue *v, const char *key, int *rets, long *delays) {
    return read_call_map(l, v, key, CALL_NAMES, C_COUNT_OF_CALLS, "AMD SMI", rets, delays);
}

static int read_ecc(loader *l, const jvalue *v, fake_gpu *g) {
    if (!want(l, v, J_OBJECT, "ecc")) {
        return 0;
    }
    for (int i = 0; i < v->count; i++) {
        int block = -1;
        for (int b = 0; b < RAS_BLOCKS; b++) {
            if (!strcmp(BLOCK_NAMES[b], v->keys[i])) {
                block = b;
            }
        }
        if (block < 0) {
            return lfail(l, v->items[i], "unknown RAS block \"%s\" in ecc (UMC, SDMA, GFX, MMHUB, XGMI_WAFL, …)", v->keys[i]);
        }
        field f[] = {{"correctable", &g->ecc[block][0]}, {"uncorrectable", &g->ecc[block][1]}, {"deferred", &g->ecc[block][2]}};
        if (!read_fields(l, v->items[i], v->keys[i], f, 3)) {
            return 0;
        }
        g->has_ecc[block] = 1;
    }
    return 1;
}

static int read_bad_pages(loader *l, const jvalue *v, fake_gpu *g) {
    if (!want(l, v, J_ARRAY, "bad_pages")) {
        return 0;
    }
    if (v->count > MAX_BAD_PAGES) {
        return lfail(l, v, "at most %d bad pages", MAX_BAD_PAGES);
    }
    for (int i = 0; i < v->count; i++) {
        const jvalue *p = v->items[i];
        if (!want(l, p, J_STRING, "bad_pages[]")) {
            return 0;
        }
        if (!strcmp(p->string, "reserved")) {
            g->bad_page_status[i] = 0;
        } else if (!strcmp(p->string, "pending")) {
            g->bad_page_status[i] = 1;
        } else if (!strcmp(p->string, "unreservable")) {
            g->bad_page_status[i] = 2;
        } else {
            return lfail(l, p, "a bad page's status is reserved, pending or unreservable, not \"%s\"", p->string);
        }
    }
    g->has_bad_pages = 1;
    g->bad_page_count = v->count;
    return 1;
}

static int read_links(loader *l, const jvalue *v, fake_gpu *g) {
    if (!want(l, v, J_ARRAY, "xgmi_links")) {
        return 0;
    }
    if (v->count > XGMI_LINKS) {
        return lfail(l, v, "at most %d XGMI links", XGMI_LINKS);
    }
    for (int i = 0; i < v->count; i++) {
        const jvalue *s = v->items[i];
        if (!want(l, s, J_STRING, "xgmi_links[]")) {
            return 0;
        }
        if (!strcmp(s->string, "down")) {
            g->links[i] = 0;
        } else if (!strcmp(s->string, "up")) {
            g->links[i] = 1;
        } else if (!strcmp(s->string, "disabled")) {
            g->links[i] = 2;
        } else {
            return lfail(l, s, "an XGMI link is up, down or disabled, not \"%s\"", s->string);
        }
    }
    g->link_count = v->count;
    return 1;
}

static int read_gpu(loader *l, const jvalue *v, fake_gpu *g) {
    if (!want(l, v, J_OBJECT, "gpus[]")) {
        return 0;
    }
    for (int i = 0; i < v->count && !l->error[0]; i++) {
        const char *k = v->keys[i];
        const jvalue *x = v->items[i];
        if (!strcmp(k, "market_name")) {
            read_text(l, x, k, g->market_name, sizeof g->market_name, &g->has_market_name);
        } else if (!strcmp(k, "uuid")) {
            read_text(l, x, k, g->uuid, sizeof g->uuid, &g->has_uuid);
        } else if (!strcmp(k, "vbios_version")) {
            read_text(l, x, k, g->vbios_version, sizeof g->vbios_version, &g->has_vbios);
        } else if (!strcmp(k, "bdf")) {
            unsigned int domain, bus, device, function;
            if (x->type != J_STRING || sscanf(x->string, "%x:%x:%x.%u", &domain, &bus, &device, &function) != 4) {
                lfail(l, x, "\"bdf\" is a PCI address such as \"0000:0c:00.0\"");
            } else {
                g->bdf.present = 1;
                g->bdf.v = (uint64_t) function | (uint64_t) device << 3 | (uint64_t) bus << 8 | (uint64_t) domain << 16;
            }
        } else if (!strcmp(k, "ecc_enabled_blocks")) {
            read_u64(l, x, k, &g->ecc_enabled);
        } else if (!strcmp(k, "ecc")) {
            read_ecc(l, x, g);
        } else if (!strcmp(k, "bad_pages")) {
            read_bad_pages(l, x, g);
        } else if (!strcmp(k, "pcie")) {
            field f[] = {{"width", &g->pcie_width}, {"max_width", &g->pcie_max_width}, {"speed", &g->pcie_speed},
                         {"max_speed", &g->pcie_max_speed}, {"interface_version", &g->pcie_version},
                         {"replay_count", &g->pcie_replays}, {"l0_to_recovery_count", &g->pcie_recoveries}};
            read_fields(l, x, k, f, 7);
        } else if (!strcmp(k, "gfx_activity")) {
            read_u64(l, x, k, &g->activity);
        } else if (!strcmp(k, "xgmi_error_status")) {
            read_u64(l, x, k, &g->xgmi_error_status);
        } else if (!strcmp(k, "xgmi_links")) {
            read_links(l, x, g);
        } else if (!strcmp(k, "temperature")) {
            field f[] = {{"hotspot", &g->hotspot}, {"vram", &g->vram}, {"hotspot_critical", &g->hotspot_critical},
                         {"hotspot_emergency", &g->hotspot_emergency}, {"vram_critical", &g->vram_critical}};
            read_fields(l, x, k, f, 5);
        } else if (!strcmp(k, "violations")) {
            field f[] = {{"prochot", &g->prochot}, {"ppt", &g->ppt}, {"socket_thermal", &g->socket_thermal},
                         {"vr_thermal", &g->vr_thermal}, {"hbm_thermal", &g->hbm_thermal}};
            g->has_violations = read_fields(l, x, k, f, 5);
        } else if (!strcmp(k, "power")) {
            field f[] = {{"current_socket_w", &g->current_socket_power}, {"average_socket_w", &g->average_socket_power},
                         {"cap_uw", &g->power_cap_uw}};
            read_fields(l, x, k, f, 3);
        } else if (!strcmp(k, "returns")) {
            read_call_overrides(l, x, k, g->ret, NULL);
        } else if (!strcmp(k, "delays_ms")) {
            read_call_overrides(l, x, k, NULL, g->delay_ms);
        } else {
            lfail(l, x, "unknown key \"%s\" in gpus[] (see fake_amdsmi.md)", k);
        }
    }
    return !l->error[0];
}

/* Loads the scenario into the globals; on error leaves a message in l->error. Caller holds lock. */
static void load_scenario(loader *l) {
    jvalue *root = read_scenario(l, "NHC_FAKE_AMDSMI_SCENARIO");
    if (!root) {
        return;
    }
    /* Event registrations belong to the process, as in the real library: another user's amdsmi_init
     * (the GPU probes' session, beside the daemon's event watcher) must not drop them. */
    int events_init[MAX_GPUS];
    uint64_t event_mask[MAX_GPUS];
    for (int i = 0; i < MAX_GPUS; i++) {
        events_init[i] = gpus[i].events_init;
        event_mask[i] = gpus[i].event_mask;
    }
    memset(gpus, 0, sizeof gpus);
    for (int i = 0; i < MAX_GPUS; i++) {
        gpus[i].events_init = events_init[i];
        gpus[i].event_mask = event_mask[i];
    }
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
        gpus[i].link_count = -1;
    }
    if (want(l, root, J_OBJECT, "the scenario")) {
        for (int i = 0; i < root->count && !l->error[0]; i++) {
            const char *k = root->keys[i];
            const jvalue *x = root->items[i];
            if (!strcmp(k, "driver_version")) {
                read_text(l, x, k, driver_version, sizeof driver_version, &has_driver_version);
            } else if (!strcmp(k, "returns")) {
                read_call_overrides(l, x, k, system_ret, NULL);
            } else if (!strcmp(k, "delays_ms")) {
                read_call_overrides(l, x, k, NULL, system_delay_ms);
            } else if (!strcmp(k, "gpus")) {
                if (want(l, x, J_ARRAY, k)) {
                    if (x->count > MAX_GPUS) {
                        lfail(l, x, "at most %d gpus", MAX_GPUS);
                    }
                    for (int g = 0; g < x->count && g < MAX_GPUS && !l->error[0]; g++) {
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

/* The scenario's override for a library-level call: -1 to proceed normally. */
static int system_call(int call) {
    pthread_mutex_lock(&lock);
    long delay = system_delay_ms[call];
    int ret = system_ret[call];
    pthread_mutex_unlock(&lock);
    sleep_ms(delay);
    return ret;
}

/* Resolves a handle and applies the GPU's delay and status override for this call. */
static amdsmi_status_t device_call(void *handle, int call, fake_gpu **out) {
    fake_gpu *g = (fake_gpu *) handle;
    if (g < gpus || g >= gpus + MAX_GPUS || ((char *) g - (char *) gpus) % sizeof(fake_gpu) != 0) {
        return AMDSMI_STATUS_INVAL;
    }
    pthread_mutex_lock(&lock);
    int initialised = init_count > 0;
    int exists = g->index < gpu_count;
    long delay = g->delay_ms[call];
    int ret = g->ret[call];
    pthread_mutex_unlock(&lock);
    if (!initialised) {
        return AMDSMI_STATUS_NOT_INIT;
    }
    if (!exists) {
        return AMDSMI_STATUS_NOT_FOUND;
    }
    sleep_ms(delay);
    if (ret >= 0 && ret != AMDSMI_STATUS_SUCCESS) {
        return ret;
    }
    *out = g;
    return AMDSMI_STATUS_SUCCESS;
}

#define DEVICE_CALL(handle, call)                               \
    fake_gpu *g = NULL;                                         \
    amdsmi_status_t r_ = device_call((handle), (call), &g);     \
    if (r_ != AMDSMI_STATUS_SUCCESS) {                          \
        return r_;                                              \
    }

/* A scenario's text into a struct's char array, cut to fit as the library would. */
static void put_text(char *out, size_t cap, const char *value) {
    size_t n = strlen(value);
    if (n >= cap) {
        n = cap - 1;
    }
    memcpy(out, value, n);
    out[n] = 0;
}

/* ---------------------------------------------------------------- start / stop */

EXPORT amdsmi_status_t amdsmi_init(uint64_t flags) {
    (void) flags;
    pthread_mutex_lock(&lock);
    loader l = {0};
    load_scenario(&l);
    if (l.error[0]) {
        pthread_mutex_unlock(&lock);
        fprintf(stderr, "fake-amdsmi: %s\n", l.error);
        return AMDSMI_STATUS_INIT_ERROR;
    }
    pthread_mutex_unlock(&lock);
    int r = system_call(C_INIT);
    if (r >= 0 && r != AMDSMI_STATUS_SUCCESS) {
        return r;
    }
    pthread_mutex_lock(&lock);
    init_count++;
    pthread_mutex_unlock(&lock);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_shut_down(void) {
    int r = system_call(C_SHUTDOWN);
    if (r >= 0 && r != AMDSMI_STATUS_SUCCESS) {
        return r;
    }
    pthread_mutex_lock(&lock);
    if (init_count > 0) {
        init_count--;
    }
    pthread_mutex_unlock(&lock);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_status_code_to_string(amdsmi_status_t status, const char **out) {
    if (!out) {
        return AMDSMI_STATUS_INVAL;
    }
    switch (status) {
        case AMDSMI_STATUS_SUCCESS: *out = "Success"; break;
        case AMDSMI_STATUS_NOT_SUPPORTED: *out = "Feature not supported"; break;
        case AMDSMI_STATUS_NO_PERM: *out = "Permission Denied"; break;
        case AMDSMI_STATUS_INIT_ERROR: *out = "An error occurred during initialization"; break;
        case AMDSMI_STATUS_NOT_FOUND: *out = "Device Not found"; break;
        case AMDSMI_STATUS_NOT_INIT: *out = "Device not initialized"; break;
        case AMDSMI_STATUS_DRIVER_NOT_LOADED: *out = "Driver not loaded"; break;
        case AMDSMI_STATUS_NO_DATA: *out = "No data was found for given input"; break;
        default: *out = "An unknown error occurred"; break;
    }
    return AMDSMI_STATUS_SUCCESS;
}

static int initialised(void) {
    pthread_mutex_lock(&lock);
    int i = init_count > 0;
    pthread_mutex_unlock(&lock);
    return i;
}

/* ---------------------------------------------------------------- inventory */

EXPORT amdsmi_status_t amdsmi_get_socket_handles(uint32_t *count, void **handles) {
    int r = system_call(C_SOCKETS);
    if (r >= 0 && r != AMDSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!initialised()) {
        return AMDSMI_STATUS_NOT_INIT;
    }
    if (!count) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!handles) {
        *count = (uint32_t) gpu_count;
        return AMDSMI_STATUS_SUCCESS;
    }
    uint32_t n = *count < (uint32_t) gpu_count ? *count : (uint32_t) gpu_count;
    for (uint32_t i = 0; i < n; i++) {
        handles[i] = &sockets[i];
    }
    *count = n;
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_processor_handles(void *socket, uint32_t *count, void **handles) {
    int r = system_call(C_PROCESSORS);
    if (r >= 0 && r != AMDSMI_STATUS_SUCCESS) {
        return r;
    }
    char *s = (char *) socket;
    if (!count || s < sockets || s >= sockets + gpu_count) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!handles) {
        *count = 1;
        return AMDSMI_STATUS_SUCCESS;
    }
    if (*count < 1) {
        return AMDSMI_STATUS_INSUFFICIENT_SIZE;
    }
    handles[0] = &gpus[s - sockets];
    *count = 1;
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_device_bdf(void *handle, uint64_t *bdf) {
    DEVICE_CALL(handle, C_BDF);
    if (!bdf) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->bdf.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    *bdf = g->bdf.v;
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_device_uuid(void *handle, unsigned int *length, char *uuid) {
    DEVICE_CALL(handle, C_UUID);
    if (!length || !uuid) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->has_uuid) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    if (strlen(g->uuid) + 1 > *length) {
        return AMDSMI_STATUS_INSUFFICIENT_SIZE;
    }
    strcpy(uuid, g->uuid);
    *length = (unsigned int) strlen(g->uuid);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_asic_info(void *handle, asic_info_t *info) {
    DEVICE_CALL(handle, C_ASIC);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->has_market_name) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    put_text(info->market_name, sizeof info->market_name, g->market_name);
    info->vendor_id = 0x1002;
    put_text(info->vendor_name, sizeof info->vendor_name, "Advanced Micro Devices Inc. [AMD/ATI]");
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_vbios_info(void *handle, vbios_info_t *info) {
    DEVICE_CALL(handle, C_VBIOS);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->has_vbios) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    put_text(info->version, sizeof info->version, g->vbios_version);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_driver_info(void *handle, driver_info_t *info) {
    DEVICE_CALL(handle, C_DRIVER);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!has_driver_version) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    put_text(info->driver_version, sizeof info->driver_version, driver_version);
    put_text(info->driver_name, sizeof info->driver_name, "amdgpu");
    return AMDSMI_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- RAS: ECC and bad pages */

EXPORT amdsmi_status_t amdsmi_get_gpu_ecc_enabled(void *handle, uint64_t *blocks) {
    DEVICE_CALL(handle, C_ECC_ENABLED);
    if (!blocks) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->ecc_enabled.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    *blocks = g->ecc_enabled.v;
    return AMDSMI_STATUS_SUCCESS;
}

static void put_counts(const opt_u64 counts[3], error_count_t *ec) {
    memset(ec, 0, sizeof *ec);
    ec->correctable_count = counts[0].present ? counts[0].v : 0;
    ec->uncorrectable_count = counts[1].present ? counts[1].v : 0;
    ec->deferred_count = counts[2].present ? counts[2].v : 0;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_total_ecc_count(void *handle, error_count_t *ec) {
    DEVICE_CALL(handle, C_TOTAL_ECC);
    if (!ec) {
        return AMDSMI_STATUS_INVAL;
    }
    int any = 0;
    opt_u64 sum[3] = {{1, 0}, {1, 0}, {1, 0}};
    for (int b = 0; b < RAS_BLOCKS; b++) {
        if (g->has_ecc[b]) {
            any = 1;
            for (int t = 0; t < 3; t++) {
                sum[t].v += g->ecc[b][t].present ? g->ecc[b][t].v : 0;
            }
        }
    }
    if (!any) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    put_counts(sum, ec);
    return AMDSMI_STATUS_SUCCESS;
}

/* amdsmi_gpu_block_t is 64 bits wide: its values reach bit 63. */
EXPORT amdsmi_status_t amdsmi_get_gpu_ecc_count(void *handle, uint64_t block, error_count_t *ec) {
    DEVICE_CALL(handle, C_ECC_COUNT);
    if (!ec || block == 0 || (block & (block - 1)) != 0) {
        return AMDSMI_STATUS_INVAL;
    }
    int b = __builtin_ctzll(block);
    if (b >= RAS_BLOCKS || !g->has_ecc[b]) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    put_counts(g->ecc[b], ec);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_bad_page_info(void *handle, uint32_t *count, page_record_t *records) {
    DEVICE_CALL(handle, C_BAD_PAGES);
    if (!count) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->has_bad_pages) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    if (!records) {
        *count = (uint32_t) g->bad_page_count;
        return AMDSMI_STATUS_SUCCESS;
    }
    uint32_t n = *count < (uint32_t) g->bad_page_count ? *count : (uint32_t) g->bad_page_count;
    for (uint32_t i = 0; i < n; i++) {
        records[i].page_address = 0x5c70000000ULL + 0x1000ULL * i;
        records[i].page_size = 4096;
        records[i].status = g->bad_page_status[i];
    }
    *count = n;
    return AMDSMI_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- PCIe, activity, XGMI */

EXPORT amdsmi_status_t amdsmi_get_pcie_info(void *handle, pcie_info_t *info) {
    DEVICE_CALL(handle, C_PCIE);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->pcie_width.present && !g->pcie_speed.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    /* what AMD SMI writes for a value it has not: all bits set */
    memset(info, 0xff, sizeof *info);
    memset(info->pcie_static.reserved, 0, sizeof info->pcie_static.reserved);
    info->pcie_static.slot_type = 1;    /* OAM */
    if (g->pcie_max_width.present) {
        info->pcie_static.max_pcie_width = (uint16_t) g->pcie_max_width.v;
    }
    if (g->pcie_max_speed.present) {
        info->pcie_static.max_pcie_speed = (uint32_t) g->pcie_max_speed.v;
    }
    info->pcie_static.pcie_interface_version = g->pcie_version.present ? (uint32_t) g->pcie_version.v : 0;
    if (g->pcie_width.present) {
        info->pcie_metric.pcie_width = (uint16_t) g->pcie_width.v;
    }
    if (g->pcie_speed.present) {
        info->pcie_metric.pcie_speed = (uint32_t) g->pcie_speed.v;
    }
    if (g->pcie_replays.present) {
        info->pcie_metric.pcie_replay_count = g->pcie_replays.v;
    }
    if (g->pcie_recoveries.present) {
        info->pcie_metric.pcie_l0_to_recovery_count = g->pcie_recoveries.v;
    }
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_activity(void *handle, engine_usage_t *info) {
    DEVICE_CALL(handle, C_ACTIVITY);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->activity.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    info->gfx_activity = (uint32_t) g->activity.v;
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_gpu_xgmi_error_status(void *handle, int *status) {
    DEVICE_CALL(handle, C_XGMI_ERROR);
    if (!status) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->xgmi_error_status.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    *status = (int) g->xgmi_error_status.v;
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_gpu_xgmi_link_status(void *handle, xgmi_link_status_t *status) {
    DEVICE_CALL(handle, C_XGMI_LINKS);
    if (!status) {
        return AMDSMI_STATUS_INVAL;
    }
    if (g->link_count < 0) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(status, 0, sizeof *status);
    status->total_links = (uint32_t) g->link_count;
    for (int i = 0; i < g->link_count; i++) {
        status->status[i] = g->links[i];
    }
    return AMDSMI_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- thermal and power */

/* amdsmi_temperature_type_t: HOTSPOT 1, VRAM 2; amdsmi_temperature_metric_t: CURRENT 0, CRITICAL 5, EMERGENCY 7. °C. */
EXPORT amdsmi_status_t amdsmi_get_temp_metric(void *handle, int sensor, int metric, int64_t *temperature) {
    DEVICE_CALL(handle, C_TEMP);
    if (!temperature) {
        return AMDSMI_STATUS_INVAL;
    }
    const opt_u64 *v = NULL;
    if (sensor == 1 && metric == 0) {
        v = &g->hotspot;
    } else if (sensor == 2 && metric == 0) {
        v = &g->vram;
    } else if (sensor == 1 && metric == 5) {
        v = &g->hotspot_critical;
    } else if (sensor == 1 && metric == 7) {
        v = &g->hotspot_emergency;
    } else if (sensor == 2 && metric == 5) {
        v = &g->vram_critical;
    }
    if (!v || !v->present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    *temperature = (int64_t) v->v;
    return AMDSMI_STATUS_SUCCESS;
}

static uint8_t active(const opt_u64 *o) {
    return o->present ? (uint8_t) (o->v ? 1 : 0) : 0xff;
}

EXPORT amdsmi_status_t amdsmi_get_violation_status(void *handle, violation_status_t *info) {
    DEVICE_CALL(handle, C_VIOLATIONS);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->has_violations) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    info->active_prochot_thrm = active(&g->prochot);
    info->active_ppt_pwr = active(&g->ppt);
    info->active_socket_thrm = active(&g->socket_thermal);
    info->active_vr_thrm = active(&g->vr_thermal);
    info->active_hbm_thrm = active(&g->hbm_thermal);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_power_info(void *handle, power_info_t *info) {
    DEVICE_CALL(handle, C_POWER);
    if (!info) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->current_socket_power.present && !g->average_socket_power.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    info->current_socket_power = g->current_socket_power.present ? (uint32_t) g->current_socket_power.v : 0xFFFF;
    info->average_socket_power = g->average_socket_power.present ? (uint32_t) g->average_socket_power.v : 0xFFFF;
    info->gfx_voltage = info->soc_voltage = info->mem_voltage = info->power_limit = 0xFFFF;
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_get_power_cap_info(void *handle, uint32_t sensor, power_cap_info_t *info) {
    DEVICE_CALL(handle, C_POWER_CAP);
    if (!info || sensor != 0) {
        return AMDSMI_STATUS_INVAL;
    }
    if (!g->power_cap_uw.present) {
        return AMDSMI_STATUS_NOT_SUPPORTED;
    }
    memset(info, 0, sizeof *info);
    info->power_cap = info->default_power_cap = info->max_power_cap = g->power_cap_uw.v;
    return AMDSMI_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- event notification, from a file */

static FILE *events;                /* NHC_FAKE_AMDSMI_EVENTS, opened at its end by the first init_gpu_event_notification */
static char partial[256];           /* a line whose newline has not arrived yet */

EXPORT amdsmi_status_t amdsmi_init_gpu_event_notification(void *handle) {
    DEVICE_CALL(handle, C_EVENT_INIT);
    pthread_mutex_lock(&lock);
    int watched = 0;
    for (int i = 0; i < MAX_GPUS; i++) {
        watched |= gpus[i].events_init;
    }
    g->events_init = 1;
    if (!events) {
        const char *path = getenv("NHC_FAKE_AMDSMI_EVENTS");
        if (path && *path) {
            events = fopen(path, "a+");
            if (events) {
                fseek(events, 0, SEEK_END);     /* lines written before are not delivered */
            }
        }
        partial[0] = 0;
    } else if (!watched) {
        /* a new watcher, after the last one stopped: it too gets only lines written from now on (the
         * file may have been emptied meanwhile) */
        fseek(events, 0, SEEK_END);
        partial[0] = 0;
    }
    pthread_mutex_unlock(&lock);
    return AMDSMI_STATUS_SUCCESS;
}

EXPORT amdsmi_status_t amdsmi_set_gpu_event_notification_mask(void *handle, uint64_t mask) {
    DEVICE_CALL(handle, C_EVENT_MASK);
    pthread_mutex_lock(&lock);
    int ok = g->events_init;
    g->event_mask = mask;
    pthread_mutex_unlock(&lock);
    return ok ? AMDSMI_STATUS_SUCCESS : AMDSMI_STATUS_INIT_ERROR;
}

EXPORT amdsmi_status_t amdsmi_stop_gpu_event_notification(void *handle) {
    DEVICE_CALL(handle, C_EVENT_STOP);
    pthread_mutex_lock(&lock);
    g->events_init = 0;
    g->event_mask = 0;
    pthread_mutex_unlock(&lock);
    return AMDSMI_STATUS_SUCCESS;
}

/* One whole line "gpu=3 event=GPU_PRE_RESET" (or event=3) into gpu/event; 0 when none is complete yet. Caller holds lock. */
static int next_event(int *gpu, int *event) {
    char line[256];
    for (;;) {
        if (!events) {
            return 0;
        }
        clearerr(events);
        if (!fgets(line, sizeof line, events)) {
            return 0;
        }
        size_t have = strlen(partial);
        if (have + strlen(line) >= sizeof partial) {
            partial[0] = 0;
            continue;
        }
        strcat(partial, line);
        if (!strchr(partial, '\n')) {
            return 0;
        }
        char name[64] = "";
        int ok = sscanf(partial, "gpu=%d event=%63s", gpu, name) == 2;
        partial[0] = 0;
        if (!ok) {
            fprintf(stderr, "fake-amdsmi: skipping event line that is not 'gpu=N event=NAME'\n");
            continue;
        }
        *event = -1;
        for (int e = 1; e < 6; e++) {
            if (!strcmp(name, EVENT_NAMES[e])) {
                *event = e;
            }
        }
        if (*event < 0) {
            char *end;
            long n = strtol(name, &end, 10);
            *event = *end ? -1 : (int) n;
        }
        if (*event <= 0 || *gpu < 0 || *gpu >= gpu_count) {
            fprintf(stderr, "fake-amdsmi: skipping event line for no GPU or no event: gpu=%d event=%s\n", *gpu, name);
            continue;
        }
        return 1;
    }
}

EXPORT amdsmi_status_t amdsmi_get_gpu_event_notification(int timeout_ms, uint32_t *count, event_data_t *data) {
    int r = system_call(C_EVENT_GET);
    if (r >= 0 && r != AMDSMI_STATUS_SUCCESS) {
        return r;
    }
    if (!count || !data || *count == 0) {
        return AMDSMI_STATUS_INVAL;
    }
    uint32_t cap = *count;
    *count = 0;
    for (int waited = 0;; waited += 10) {
        pthread_mutex_lock(&lock);
        int gpu, event;
        while (*count < cap && next_event(&gpu, &event)) {
            fake_gpu *g = &gpus[gpu];
            if (!g->events_init || !(g->event_mask & (1ULL << (event - 1)))) {
                continue;   /* not asked for */
            }
            event_data_t *d = &data[(*count)++];
            memset(d, 0, sizeof *d);
            d->processor_handle = g;
            d->event = event;
            snprintf(d->message, sizeof d->message, "fake-amdsmi: %s on GPU %d", event < 6 ? EVENT_NAMES[event] : "event", gpu);
        }
        pthread_mutex_unlock(&lock);
        if (*count > 0) {
            return AMDSMI_STATUS_SUCCESS;
        }
        if (waited >= timeout_ms) {
            return AMDSMI_STATUS_NO_DATA;
        }
        sleep_ms(10);
    }
}
