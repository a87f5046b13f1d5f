// nhc script.js example: a GPU that runs hot while drawing little power is being throttled or is
// badly cooled, something neither a temperature nor a power threshold alone tells apart from a
// busy GPU. Combines two fields of another check's observations, per GPU.
//
//   - name: gpu-thermal-power
//     use: script.js
//     with:
//       file: /etc/nhc/scripts/gpu-thermal-power.js
//       vars: { check: gpus, temperature: temperature, power: power, hot_c: 85, low_w: 150 }
//
// 'observations' is check name -> entity -> fields; 'vars' is the map above. The value of the
// last expression is the list of findings.
const v = Object.assign({ check: "gpus", temperature: "temperature", power: "power", hot_c: 85, low_w: 150 }, vars);
const gpus = observations[v.check] || {};
const findings = [];
for (const [gpu, f] of Object.entries(gpus)) {
  const t = f[v.temperature];
  const p = f[v.power];
  if (typeof t !== "number" || typeof p !== "number") {
    continue; // a GPU without these fields (NOT_SUPPORTED) is not judged
  }
  if (t >= v.hot_c && p < v.low_w) {
    findings.push({
      entity: gpu,
      severity: "warn",
      message: `${gpu} is at ${t}C while drawing only ${p}W: check its cooling (fans, airflow, thermal paste)`,
      remedy: "hardware",
    });
  }
}
findings;
