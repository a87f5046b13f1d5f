package dev.nhc.cli.lbnl;

/**
 * The flags LBNL NHC runs df with ({@code DF_FLAGS}, {@code DFI_FLAGS}), as far as they change what
 * its filesystem checks compare: {@code -i} makes the figures inodes, {@code -l} leaves remote
 * filesystems out (a check of one then passes), {@code -a} keeps the pseudo and duplicate ones.
 * {@code -T} must be there, since LBNL reads the columns by position; {@code -k} is df's default
 * unit anyway. Anything else has no translation here.
 *
 * @param problem why the flags cannot be translated, or null
 */
record DfFlags(boolean inodes, boolean localOnly, boolean all, String problem) {
    static DfFlags parse(String text) {
        String t = text.trim();
        if (!t.matches("-[A-Za-z]+")) {
            return new DfFlags(false, false, false, "'" + text + "' is not one cluster of df options");
        }
        boolean type = false;
        boolean inodes = false;
        boolean local = false;
        boolean all = false;
        for (char c : t.substring(1).toCharArray()) {
            switch (c) {
                case 'T' -> type = true;
                case 'i' -> inodes = true;
                case 'l' -> local = true;
                case 'a' -> all = true;
                case 'k', 'P' -> { }
                default -> {
                    return new DfFlags(false, false, false, "df -" + c + " changes what df prints");
                }
            }
        }
        if (!type) {
            return new DfFlags(false, false, false, "without -T df prints no type column, and LBNL NHC reads the columns by position");
        }
        return new DfFlags(inodes, local, all, null);
    }
}
