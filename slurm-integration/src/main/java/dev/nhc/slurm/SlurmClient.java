package dev.nhc.slurm;

import dev.nhc.engine.process.ProcessRunner;
import dev.nhc.model.SlurmState;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** What nhc asks of and tells Slurm, through scontrol and sinfo. */
final class SlurmClient {
    private final SlurmSettings settings;
    private final SlurmCommands runner;

    SlurmClient(SlurmSettings settings, SlurmCommands runner) {
        this.settings = settings;
        this.runner = runner;
    }

    /** The node's state flags and reason. */
    NodeStatus node(String node) throws SlurmUnavailableException {
        ProcessRunner.Result r = runner.run(List.of(scontrol(), "show", "node", "-o", node), SlurmClient::retryable);
        if (r.exitCode() != 0) {
            if (notFound(r)) {
                throw new NodeNotFoundException("slurmctld does not know node " + node + " (yet): " + SlurmCommands.said(r));
            }
            throw new SlurmUnavailableException("scontrol show node " + node + ": exit " + r.exitCode() + ": " + SlurmCommands.said(r));
        }
        for (String line : r.stdout().split("\n")) {
            NodeStatus s = NodeStatus.parse(line);
            if (s != null && s.name().equals(node)) {
                return s;
            }
        }
        // An empty or foreign answer must not pass for "node available": that is how a drain gets silently lost.
        throw new SlurmUnavailableException("scontrol show node " + node + " gave no State= line for the node: '"
                + r.stdout().strip().lines().findFirst().orElse("") + "'");
    }

    /** Every node of the cluster, or of the configured partition, for the circuit breaker. */
    List<NodeStatus> nodes() throws SlurmUnavailableException {
        ProcessRunner.Result r = runner.run(List.of(scontrol(), "show", "node", "-o"), SlurmClient::retryable);
        if (r.exitCode() != 0) {
            throw new SlurmUnavailableException("scontrol show node: exit " + r.exitCode() + ": " + SlurmCommands.said(r));
        }
        List<NodeStatus> all = new ArrayList<>();
        for (String line : r.stdout().split("\n")) {
            NodeStatus s = NodeStatus.parse(line);
            if (s != null) {
                all.add(s);
            }
        }
        if (settings.partition() == null) {
            return all;
        }
        ProcessRunner.Result p = runner.run(List.of(settings.sinfo().toString(), "-h", "-N", "-p", settings.partition(), "-o", "%N"),
                SlurmClient::retryable);
        if (p.exitCode() != 0) {
            throw new SlurmUnavailableException("sinfo -p " + settings.partition() + ": exit " + p.exitCode() + ": " + SlurmCommands.said(p));
        }
        Set<String> members = new LinkedHashSet<>(p.stdout().strip().lines().map(String::strip).toList());
        return all.stream().filter(n -> members.contains(n.name())).toList();
    }

    void setState(String node, SlurmState state, String reason) throws SlurmUnavailableException {
        update(List.of("NodeName=" + node, "State=" + state.name(), "Reason=" + reason));
    }

    /** Changes only the reason: on a drained node this leaves the state as it is, so the node does not flap. */
    void setReason(String node, String reason) throws SlurmUnavailableException {
        update(List.of("NodeName=" + node, "Reason=" + reason));
    }

    /**
     * Asks slurmctld to reboot the node once its jobs have ended (ASAP: drained meanwhile), with
     * nhc's reason. {@code nextstate=DOWN}: with ReturnToService=0 or 1 the node stays DOWN after the
     * reboot until nhc's first run on the new boot has re-checked it and resumes it (22.05 takes only
     * DOWN or RESUME; RESUME would put it back to work before any check).
     */
    void reboot(String node, String reason) throws SlurmUnavailableException {
        List<String> argv = List.of(scontrol(), "reboot", "ASAP", "nextstate=DOWN", "reason=" + reason, node);
        ProcessRunner.Result r = runner.run(argv, SlurmClient::retryable);
        if (r.exitCode() != 0) {
            throw new SlurmUnavailableException("scontrol reboot " + node + ": exit " + r.exitCode() + ": " + SlurmCommands.said(r));
        }
    }

    void resume(String node) throws SlurmUnavailableException {
        update(List.of("NodeName=" + node, "State=RESUME"));
    }

    private void update(List<String> args) throws SlurmUnavailableException {
        List<String> argv = new ArrayList<>(List.of(scontrol(), "update"));
        argv.addAll(args);
        ProcessRunner.Result r = runner.run(argv, SlurmClient::retryable);
        if (r.exitCode() != 0) {
            throw new SlurmUnavailableException("scontrol update " + args.get(0) + ": exit " + r.exitCode() + ": " + SlurmCommands.said(r));
        }
    }

    private String scontrol() {
        return settings.scontrol().toString();
    }

    private static boolean notFound(ProcessRunner.Result r) {
        String text = (r.stdout() + r.stderr()).toLowerCase(Locale.ROOT);
        return text.contains("not found");
    }

    /** "Not found" and "invalid" answers are final; a controller that is down or busy may answer the next time. */
    private static boolean retryable(ProcessRunner.Result r) {
        String text = (r.stdout() + r.stderr()).toLowerCase(Locale.ROOT);
        return !(text.contains("not found") || text.contains("invalid"));
    }
}
