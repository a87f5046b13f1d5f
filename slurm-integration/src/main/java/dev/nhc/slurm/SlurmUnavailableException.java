package dev.nhc.slurm;

/** Slurm could not be asked or told: scontrol missing, slurmctld down or slow, the deadline reached. */
public class SlurmUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public SlurmUnavailableException(String message) {
        super(message);
    }
}
