/**
 * The rule language of a check's {@code warn:}, {@code fail:} and {@code message:}, and its
 * evaluation per entity. {@link dev.nhc.rules.RuleEngine} is the engine's
 * {@link dev.nhc.engine.plan.RulesCompiler}, passed to the {@code ConfigLoader} explicitly by
 * whoever builds it (the CLI's {@code Wiring}); it compiles each check's rules once, when the
 * config is loaded.
 *
 * <h2>Conditions</h2>
 * <pre>
 * fail: { used_percent: "&gt; 95" }                      # a map: all conditions must hold
 * fail:                                                # a list of maps: any of them
 *   - { used_percent: "&gt; 95" }
 *   - { free_bytes: "&lt; 10GiB", active: true }
 * warn: none                                           # no WARN rules at all, not even the probe's
 * </pre>
 * A condition is {@code >, >=, <, <=, ==, !=} and a number, optionally with a unit of the field's
 * dimension ({@code %}, {@code GiB}/{@code GB}/{@code G}, {@code s}/{@code m}/{@code h},
 * {@code C}, {@code W}, {@code /s}/{@code /min}/{@code /h}); it is converted once, at load time,
 * to the field's unit, so {@code "> 1/s"} on a per-minute field means more than 60 per minute.
 * A bare value means equality ({@code count: 8}, {@code active: true}, {@code state: failed}).
 * Boolean fields take equality only; text fields also {@code "~ regex"} and {@code "!~ regex"},
 * which search (like awk's {@code ~}), anchor with {@code ^...$} for a whole match. Anything
 * else (an unknown field or operator, a unit of another dimension, a bad regex, an empty map) is
 * a config error at the condition's file:line:column.
 *
 * <h2>Which rules apply</h2>
 * A check's {@code fail:} replaces all of its probe's default FAIL rules, {@code warn:} all
 * default WARN rules; what is not given keeps the defaults. A probe's default UNKNOWN rules ("this
 * reading means the check cannot decide") are never replaced. Per entity, FAIL rules are tried
 * first, then WARN, then UNKNOWN; the first map that holds decides. The message is the check's
 * {@code message:}, else the rule's own, else automatic ({@code "/scratch: used_percent 97.2% > 95%"});
 * placeholders are field names, {@code {entity}}, {@code {check}}, {@code {value}} (the first
 * field of the map that fired), {@code {with.name}} (the check's parameter) and
 * {@code {field|one|many}} (the word that agrees with the field's number: "1 error", "2 errors").
 * The check's {@code remedy:} and {@code slurm_state:} override the rule's.
 *
 * <h2>Fields that are not reported</h2>
 * A probe declares what it reports for every entity it sees (of the kinds a field names, see
 * {@link dev.nhc.probe.FieldSpec}). A declared field that is absent (or text where a number is
 * compared) makes a map over it undecidable: unless another rule fires, the entity is UNKNOWN
 * ("field used_percent not reported for /scratch (the fail rule used_percent &gt; 98% needs it)"),
 * never PASS. A field the spec marks optional may be absent ("not available here", e.g. NVML's
 * NOT_SUPPORTED): a map over it is skipped unless another of its conditions is false, and an
 * entity for which nothing could be judged is PASS ("no rule applies: … not reported"), UNKNOWN
 * only when the probe reported no field at all for it. A PASS says what it compared:
 * "/: used_percent 41% (fail if &gt; 98%, warn if &gt; 90%)".
 *
 * <h2>for: N</h2>
 * Applied by the engine's severity policy after these rules judged (not here): a WARN or FAIL
 * counts after N consecutive runs at that severity or worse; until then it is reported as what has
 * lasted N runs (PASS, or WARN under a building FAIL) with "fail condition met 2 of 3 consecutive
 * runs: …". A pass resets the count, UNKNOWN
 * leaves it; a run in which the probe timed out or threw neither counts nor resets.
 */
package dev.nhc.rules;
