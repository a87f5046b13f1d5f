package dev.nhc.checks.host;

import java.util.Set;

/**
 * Which filesystems {@code df -l} leaves out as remote: gnulib's {@code ME_REMOTE} (mountlist.c), which
 * GNU df uses — a source with a ':' ({@code server:/export}), a {@code //server/share} of an SMB
 * filesystem, the automounter's {@code -hosts} map, or a network or cluster filesystem type.
 */
final class RemoteFilesystems {
    private static final Set<String> REMOTE_TYPES = Set.of("acfs", "afs", "coda", "auristorfs", "fhgfs", "gpfs", "ibrix", "ocfs2", "vxfs");
    private static final Set<String> SMB_TYPES = Set.of("smbfs", "smb3", "cifs");

    private RemoteFilesystems() {
    }

    static boolean isRemote(String source, String fstype) {
        return source.indexOf(':') >= 0
                || (source.startsWith("//") && SMB_TYPES.contains(fstype))
                || REMOTE_TYPES.contains(fstype)
                || source.equals("-hosts");
    }
}
