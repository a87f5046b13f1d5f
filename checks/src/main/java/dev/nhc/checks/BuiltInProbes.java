package dev.nhc.checks;

import dev.nhc.checks.dcgm.DcgmDiagProbe;
import dev.nhc.checks.dcgm.DcgmHealthProbe;
import dev.nhc.checks.gpu.GpuEccProbe;
import dev.nhc.checks.gpu.GpuInventoryProbe;
import dev.nhc.checks.gpu.GpuLinksProbe;
import dev.nhc.checks.gpu.GpuMemoryRepairProbe;
import dev.nhc.checks.gpu.GpuNvlinkProbe;
import dev.nhc.checks.gpu.GpuPcieProbe;
import dev.nhc.checks.gpu.GpuPowerProbe;
import dev.nhc.checks.gpu.GpuThermalProbe;
import dev.nhc.checks.gpu.xid.GpuXidProbe;
import dev.nhc.checks.host.CommandProbe;
import dev.nhc.checks.host.CpuProbe;
import dev.nhc.checks.host.DiskMountProbe;
import dev.nhc.checks.host.DiskUsageProbe;
import dev.nhc.checks.host.DiskWritableProbe;
import dev.nhc.checks.host.FileProbe;
import dev.nhc.checks.host.KernelLogProbe;
import dev.nhc.checks.host.KernelModuleProbe;
import dev.nhc.checks.host.NvmeProbe;
import dev.nhc.checks.host.LoadProbe;
import dev.nhc.checks.host.MemoryProbe;
import dev.nhc.checks.host.ProcessProbe;
import dev.nhc.checks.host.SystemdUnitProbe;
import dev.nhc.checks.net.IbPortsProbe;
import dev.nhc.checks.net.NetInterfaceProbe;
import dev.nhc.probe.ProbeCatalog;

/** The probes of this module by name; each is created only when a config uses it. */
public final class BuiltInProbes implements ProbeCatalog {
    @Override
    public void register(Registrar r) {
        r.add("disk.usage", DiskUsageProbe.class);
        r.add("disk.mount", DiskMountProbe.class);
        r.add("disk.writable", DiskWritableProbe.class);
        r.add("disk.nvme", NvmeProbe.class);
        r.add("memory", MemoryProbe.class);
        r.add("cpu", CpuProbe.class);
        r.add("load", LoadProbe.class);
        r.add("process", ProcessProbe.class);
        r.add("systemd.unit", SystemdUnitProbe.class);
        r.add("file", FileProbe.class);
        r.add("command", CommandProbe.class);
        r.add("kernel.module", KernelModuleProbe.class);
        r.add("kernel.log", KernelLogProbe.class);

        r.add("gpu.inventory", GpuInventoryProbe.class);
        r.add("gpu.ecc", GpuEccProbe.class);
        r.add("gpu.memory-repair", GpuMemoryRepairProbe.class);
        r.add("gpu.pcie", GpuPcieProbe.class);
        r.add("gpu.nvlink", GpuNvlinkProbe.class);
        r.add("gpu.links", GpuLinksProbe.class);
        r.add("gpu.thermal", GpuThermalProbe.class);
        r.add("gpu.power", GpuPowerProbe.class);
        r.add("gpu.xid", GpuXidProbe.class);
        r.add("gpu.fabric", dev.nhc.checks.gpu.fabric.GpuFabricProbe.class);
        r.add("gpu.amd-events", dev.nhc.checks.gpu.amd.GpuAmdEventsProbe.class);

        r.add("dcgm.health", DcgmHealthProbe.class);
        r.add("dcgm.diag", DcgmDiagProbe.class);

        r.add("ib.ports", IbPortsProbe.class);
        r.add("net.interface", NetInterfaceProbe.class);
    }
}
