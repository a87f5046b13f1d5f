package dev.nhc.slurm;

/** slurmctld answered but does not know the node (slurmd runs the first health check before it registers). */
public class NodeNotFoundException extends SlurmUnavailableException {
    private static final long serialVersionUID = 1L;

    public NodeNotFoundException(String message) {
        super(message);
    }
}
