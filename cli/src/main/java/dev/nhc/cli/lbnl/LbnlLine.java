package dev.nhc.cli.lbnl;

/**
 * One logical line of an LBNL NHC config, as its {@code nhc_load_conf} sees it: {@code read LINE}
 * (backslashes removed, a trailing backslash joins the next line, surrounding blanks trimmed),
 * then split at the first {@code ||} into the host match and the check.
 *
 * @param number    the file line the logical line starts on
 * @param text      the line as written (joined lines separated by a newline), for comments
 * @param target    the host match, trimmed
 * @param check     the check text after {@code read}'s backslash processing, trimmed
 * @param separated whether the line has a {@code ||} at all
 */
public record LbnlLine(int number, String text, String target, String check, boolean separated) {

    /** Comments and blank lines, which LBNL NHC skips and which carry no check. */
    public boolean commentOrBlank() {
        return target.startsWith("#") || (target.isEmpty() && check.isEmpty()) || text.isBlank();
    }
}
