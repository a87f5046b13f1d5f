#!/usr/bin/env python3
"""Regenerates nhc's catalogue resources from the public sources they are transcribed from.

    checks/catalogues/generate.py GPUD_GIT_DIR DCGM_GIT_DIR DRIVER_GIT_DIR

GPUD_GIT_DIR, DCGM_GIT_DIR and DRIVER_GIT_DIR are git directories (bare or not) of leptonai/gpud,
NVIDIA/DCGM and NVIDIA/open-gpu-kernel-modules;
the files are read at their HEAD with `git show`, and the commit is written into each resource's
header. Only the data rows and the source lines are rewritten: the block between "# mapping:" and
"# end mapping" of an existing resource is kept as it is (it documents nhc's own mapping, and
XidCatalogueTest / SxidCatalogueTest / DcgmErrorCodesTest hold it to the code).

Sources:
  XIDs   gpud components/accelerator/nvidia/xid/catalog_generated.go — gpud's transcription of
         NVIDIA's Xid-Catalog.xlsx (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html)
         DCGM modules/health/DcgmHealthWatch.cpp, BuildXidMappings — DCGM's health rules per XID
         the driver's src/common/sdk/nvidia/inc/nverror.h — XIDs newer than the catalogue, by name
  NVLink5 gpud components/accelerator/nvidia/xid/catalog_generated.go, nvlinkRules — gpud's transcription
         of the catalogue's sheet "XID 144-150 Decode" (unit, intrinfo bit patterns, error status, resolution)
  SXids  gpud components/accelerator/nvidia/sxid/sxid.go — gpud's transcription of the Fabric
         Manager User Guide, appendix "NVSwitch SXid errors"
  DCGM   DCGM dcgmlib/dcgm_errors.h (codes, severities, categories) and dcgmlib/src/dcgm_errors.c
         (each code's severity and category)
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = os.path.join(HERE, "..", "src", "main", "resources", "dev", "nhc", "checks")


def show(git_dir, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path], check=True, capture_output=True,
                          text=True).stdout


def head(git_dir, path):
    return subprocess.run(["git", "--git-dir", git_dir, "log", "-1", "--format=%H %cs", "HEAD", "--", path], check=True,
                          capture_output=True, text=True).stdout.strip()


def clean(s):
    s = s.replace("\\n", " ").replace('\\"', '"').replace("\t", " ")
    return re.sub(r"\s+", " ", s).strip() or "-"


def kept_mapping(path):
    """The mapping block of the existing resource, or a placeholder the test will reject."""
    if not os.path.exists(path):
        return ["# mapping:", "#   (write the mapping here; the catalogue test holds it to the code)", "# end mapping"]
    lines, keep = [], False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# mapping:"):
            keep = True
        if keep:
            lines.append(line)
        if line.startswith("# end mapping"):
            break
    return lines


def write(path, header, mapping, columns, rows):
    with open(path, "w", encoding="utf-8") as f:
        for h in header:
            f.write(("# " + h).rstrip() + "\n")
        for m in mapping:
            f.write(m + "\n")
        f.write("\t".join(columns) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


def dcgm_xid_rules(dcgm):
    """XID -> "RESULT SYSTEM CODE [arch]" from DCGM's BuildXidMappings."""
    src = show(dcgm, "modules/health/DcgmHealthWatch.cpp")
    body = src[src.index("void DcgmHealthWatch::BuildXidMappings()"):]
    body = body[:body.index("\n}\n")]
    body = re.sub(r"\s+", " ", body)
    rules = {}
    for m in re.finditer(r"\{ (\d+), \{ DCGM_HEALTH_RESULT_(FAIL|WARN), DCGM_HEALTH_WATCH_(\w+), ([^{}]*?), (DCGM_FR_\w+)(?:, DCGM_CHIP_ARCH_(\w+))? \} \}",
                         body):
        xid, result, system, _msg, code, arch = m.groups()
        rules[int(xid)] = " ".join([result, system, code] + ([arch.lower()] if arch else []))
    if len(rules) < 20:
        sys.exit("DcgmHealthWatch.cpp: BuildXidMappings no longer has the expected shape (%d rules)" % len(rules))
    return rules


# XIDs the driver defines beyond NVIDIA's catalogue: nhc's reading of the driver source, where it
# says what the driver does (marked "driver:" in the resolution column so it is never taken for NVIDIA's).
DRIVER_READING = {
    175: ("driver:RESET_GPU", "GSP timeout due to a memory subsystem error; the driver marks the GPU for reset "
                              "(kernel_gsp.c _kgspClassifyGspTimeout, _kgspHandleFatalTimeout)"),
}


def driver_xids(driver, after):
    path = "src/common/sdk/nvidia/inc/nverror.h"
    src = show(driver, path)
    rows = []
    for name, code in re.findall(r"#define (\w+)\s+\((\d+)\)", src):
        code = int(code)
        if code > after and name != "ROBUST_CHANNEL_LAST_ERROR":
            resolution, why = DRIVER_READING.get(code, ("-", "not in NVIDIA's catalogue yet"))
            rows.append([str(code), name, why, resolution, "-", "-"])
    return path, head(driver, path), rows


def xids(gpud, dcgm, driver):
    path = "components/accelerator/nvidia/xid/catalog_generated.go"
    src = show(gpud, path)
    generated = re.search(r"Generated at (\S+)\. Source: (\S+)", src)
    entries = re.findall(r'\{Code: (\d+), Mnemonic: "((?:[^"\\]|\\.)*)", Description: "((?:[^"\\]|\\.)*)", '
                         r'ImmediateResolution: "((?:[^"\\]|\\.)*)", InvestigatoryResolution: "((?:[^"\\]|\\.)*)"\}', src)
    rules = dcgm_xid_rules(dcgm)
    codes = [int(e[0]) for e in entries]
    if codes != list(range(1, len(codes) + 1)):
        sys.exit("catalog_generated.go: XIDs are not 1..N in order")
    driver_path, driver_head, extra = driver_xids(driver, codes[-1])
    target = os.path.join(RESOURCES, "gpu", "xid", "xid-catalogue.tsv")
    header = [
        "NVIDIA's XID catalogue as gpu.xid judges it: every XID the catalogue lists (1-%d), with NVIDIA's" % codes[-1],
        "resolution (the \"Resolution Bucket (Immediate Action)\") and DCGM's health rule for it.",
        "catalogue: NVIDIA, \"Analyzing Xid Errors with the Xid Catalog\", Xid-Catalog.xlsx (Ampere and newer GPUs),",
        "  %s" % generated.group(2),
        "  read from leptonai/gpud %s @ %s," % (path, head(gpud, path)),
        "  gpud's transcription of the spreadsheet, generated %s" % generated.group(1),
        "DCGM health rules: NVIDIA/DCGM modules/health/DcgmHealthWatch.cpp BuildXidMappings @ %s"
        % head(dcgm, "modules/health/DcgmHealthWatch.cpp"),
        "driver XIDs beyond the catalogue (%d-%d): NVIDIA/open-gpu-kernel-modules %s @ %s; their resolution is - or"
        % (codes[-1] + 1, int(extra[-1][0]) if extra else codes[-1], driver_path, driver_head),
        "  nhc's reading of the driver source, marked driver:",
        "regenerate: checks/catalogues/generate.py GPUD_GIT_DIR DCGM_GIT_DIR DRIVER_GIT_DIR (keeps the mapping block)",
        "columns: xid, mnemonic, description, resolution (immediate action; - when NVIDIA gives none),",
        "  investigatory (NVIDIA's investigatory action), dcgm (DCGM's result, health system, error code",
        "  and architecture for this XID; - when DCGM has no rule)",
    ]
    rows = []
    for code, mnemonic, description, immediate, investigatory in entries:
        rows.append([code, clean(mnemonic), clean(description), clean(immediate), clean(investigatory),
                     rules.get(int(code), "-")])
    rows.extend(extra)
    missing = sorted(set(rules) - set(int(r[0]) for r in rows))
    if missing:
        sys.exit("DCGM has rules for XIDs the catalogue lacks: %s" % missing)
    write(target, header, kept_mapping(target), ["xid", "mnemonic", "description", "resolution", "investigatory", "dcgm"],
          rows)


def nvlink5(gpud):
    path = "components/accelerator/nvidia/xid/catalog_generated.go"
    src = show(gpud, path)
    generated = re.search(r"Generated at (\S+)\. Source: (\S+)", src)
    body = src[src.index("var nvlinkRules = []nvlinkRule{"):]
    body = body[:body.index("\n}\n")]
    q = r'"((?:[^"\\]|\\.)*)"'
    rows = []
    for m in re.finditer(r"\{Xid: (\d+), Unit: %s, IntrinfoPatternV1: %s, IntrinfoPatternV2: %s, ErrorStatus: (0x[0-9a-fA-F]+), "
                         r"Resolution: %s, Investigatory: %s, Severity: %s, (?:Action2: %s, )?HwSw: %s, LocalRemote: %s\}"
                         % (q, q, q, q, q, q, q, q, q), body):
        xid, unit, v1, v2, status, resolution, investigatory, severity, action2, hwsw, effect = m.groups()
        for pattern in (v1, v2):
            if not re.fullmatch(r"[01-]{32}", pattern):
                sys.exit("catalog_generated.go: intrinfo pattern %r of XID %s %s is not 32 bits of 0, 1 or -" % (pattern, xid, unit))
        rows.append([xid, clean(unit), v1, v2, "0x%08x" % int(status, 16), clean(resolution), clean(investigatory), clean(severity),
                     clean(action2 or ""), clean(hwsw), clean(effect)])
    if len(rows) != body.count("{Xid: "):
        sys.exit("catalog_generated.go: %d of %d nvlinkRules rows have the expected shape" % (len(rows), body.count("{Xid: ")))
    target = os.path.join(RESOURCES, "gpu", "xid", "nvlink5-decode.tsv")
    header = [
        "NVIDIA's decode of the NVLink5 XIDs 144-150 as gpu.xid judges their lines: one row per unit, intrinfo bit pattern and",
        "error status, with NVIDIA's resolution and severity for it.",
        "catalogue: NVIDIA, \"Analyzing Xid Errors with the Xid Catalog\", Xid-Catalog.xlsx, sheet \"XID 144-150 Decode\",",
        "  %s" % generated.group(2),
        "  read from leptonai/gpud %s (nvlinkRules) @ %s," % (path, head(gpud, path)),
        "  gpud's transcription of the spreadsheet, generated %s" % generated.group(1),
        "regenerate: checks/catalogues/generate.py GPUD_GIT_DIR DCGM_GIT_DIR DRIVER_GIT_DIR (keeps the mapping block)",
        "columns: xid, unit (the line's unit; / separates names of one unit), intrinfo_v1 and intrinfo_v2 (the bits of the line's",
        "  first register, most significant first: 0, 1, or - for any; a row matches when either does), error_status (the",
        "  line's second register), resolution (immediate action), investigatory, severity (NVIDIA's), action2 (a second",
        "  action; - for none), hw_sw (hardware or software), effect (NVIDIA's local and remote effect)",
    ]
    write(target, header, kept_mapping(target), ["xid", "unit", "intrinfo_v1", "intrinfo_v2", "error_status", "resolution", "investigatory",
                                                 "severity", "action2", "hw_sw", "effect"], rows)


def sxids(gpud):
    path = "components/accelerator/nvidia/sxid/sxid.go"
    src = show(gpud, path)
    start = src.index("var details = map[int]Detail{")
    body = src[start:]
    section = None
    rows = []
    version = set()
    for m in re.finditer(r"// (Non-Fatal NVSwitch SXid Errors|Fatal NVSwitch SXid Errors|Always Fatal NVSwitch SXid Errors|"
                         r"Other Notable NVSwitch SXid Error|Others)$|\n\t(\d+): \{(.*?)\n\t\},", body, re.S | re.M):
        if m.group(1):
            section = {"Non-Fatal NVSwitch SXid Errors": "non-fatal", "Fatal NVSwitch SXid Errors": "fatal",
                       "Always Fatal NVSwitch SXid Errors": "always-fatal", "Other Notable NVSwitch SXid Error": "notable",
                       "Others": "non-fatal"}[m.group(1)]
            continue
        code, entry = m.group(2), m.group(3)
        name = re.search(r'Name:\s+"([^"]*)"', entry).group(1)
        doc = re.search(r'DocumentVersion:\s+"([^"]*)"', entry).group(1)
        version.add(doc)
        always = re.search(r"AlwaysFatal:\s+(true|false|defaultAlwaysFatalErr\.AlwaysFatal|defaultPotentialFatalErr\.AlwaysFatal)",
                           entry).group(1)
        always = always in ("true", "defaultAlwaysFatalErr.AlwaysFatal")
        recovery = re.search(r'Recovery:\s+(?:"((?:[^"\\]|\\.)*)"|(default\w+)\.Recovery)', entry)
        if recovery.group(2):
            recovery = {"defaultPotentialFatalErr": "Restart the guest VM to see if the associated NVSwitch comes back up.",
                        "defaultAlwaysFatalErr": "Restart the host to reset the entire fabric/system."}[recovery.group(2)]
        else:
            recovery = recovery.group(1)
        cls = "always-fatal" if always else section
        rows.append([code, clean(name), cls, clean(recovery), "guide" if doc != "N/A" else "driver"])
    rows.sort(key=lambda r: int(r[0]))
    target = os.path.join(RESOURCES, "gpu", "xid", "sxid-catalogue.tsv")
    header = [
        "NVIDIA's NVSwitch SXid errors as gpu.xid (SXid kernel log lines) and gpu.fabric (the fabric manager log) judge them.",
        "catalogue: NVIDIA Fabric Manager User Guide, appendix \"NVSwitch SXid errors\" (%s)," % ", ".join(sorted(v for v in version if v != "N/A")),
        "  https://docs.nvidia.com/datacenter/tesla/pdf/fabric-manager-user-guide.pdf",
        "  read from leptonai/gpud %s @ %s (gpud's transcription of the guide;" % (path, head(gpud, path)),
        "  rows with source \"driver\" are gpud's additions from the open-gpu-kernel-modules NVSwitch driver, not the guide)",
        "regenerate: checks/catalogues/generate.py GPUD_GIT_DIR DCGM_GIT_DIR DRIVER_GIT_DIR (keeps the mapping block)",
        "columns: sxid, name, class (the guide's section: non-fatal, fatal, always-fatal, notable), recovery (the guide's",
        "  words; - when it gives none), source (guide or driver)",
    ]
    write(target, header, kept_mapping(target), ["sxid", "name", "class", "recovery", "source"], rows)


def dcgm_codes(dcgm):
    hpath, cpath = "dcgmlib/dcgm_errors.h", "dcgmlib/src/dcgm_errors.c"
    h, c = show(dcgm, hpath), show(dcgm, cpath)
    enum = h[h.index("typedef enum dcgmError_enum"):h.index("} dcgmError_t;")]
    codes = []
    for m in re.finditer(r"(DCGM_FR_\w+)\s*=\s*(\d+)\s*,\s*//!<\s*\d+\s*(.*)", enum):
        if m.group(1) == "DCGM_FR_ERROR_SENTINEL":
            continue
        codes.append((int(m.group(2)), m.group(1), clean(m.group(3))))
    meta = dict(re.findall(r"DCGM_ERROR_TABLE_ENTRY\((DCGM_FR_\w+),\s*(DCGM_ERROR_\w+),\s*(DCGM_FR_EC_\w+)\)", c) and
                [(n, (s, k)) for n, s, k in re.findall(r"DCGM_ERROR_TABLE_ENTRY\((DCGM_FR_\w+),\s*(DCGM_ERROR_\w+),\s*(DCGM_FR_EC_\w+)\)", c)])
    if [n for n, _, _ in codes] != list(range(len(codes))):
        sys.exit("dcgm_errors.h: codes are not 0..N in order")
    rows = []
    for n, name, what in codes:
        sev, cat = meta[name]
        rows.append([str(n), name, sev.replace("DCGM_ERROR_", ""), cat.replace("DCGM_FR_EC_", ""), what])
    target = os.path.join(RESOURCES, "dcgm", "dcgm-error-codes.tsv")
    header = [
        "DCGM's error codes (dcgmError_t: the error_id of dcgmi diag's and dcgmi health's JSON) with DCGM's own severity",
        "(dcgmErrorSeverity_t) and category (dcgmErrorCategory_t) for each, and the kind nhc derives from them.",
        "source: NVIDIA/DCGM %s @ %s and %s @ %s" % (hpath, head(dcgm, hpath), cpath, head(dcgm, cpath)),
        "regenerate: checks/catalogues/generate.py GPUD_GIT_DIR DCGM_GIT_DIR DRIVER_GIT_DIR (keeps the mapping block)",
        "columns: id, name, severity, category, description (the header's comment)",
    ]
    write(target, header, kept_mapping(target), ["id", "name", "severity", "category", "description"], rows)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    gpud, dcgm, driver = sys.argv[1], sys.argv[2], sys.argv[3]
    xids(gpud, dcgm, driver)
    nvlink5(gpud)
    sxids(gpud)
    dcgm_codes(dcgm)


if __name__ == "__main__":
    main()
