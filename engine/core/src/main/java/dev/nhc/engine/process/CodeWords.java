package dev.nhc.engine.process;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of an argument that may be paths, for arguments that are code an interpreter runs
 * ({@code sh -c}, {@code python3 -c}, {@code perl -e}, an awk program) as much as for plain ones.
 * Words end at blanks, quotes and the punctuation of shells and of the usual scripting languages
 * ({@code ; | & < > ( ) { } [ ] $ = : ! * ? # \ ^ ,}), so that {@code exec /x/check.sh},
 * {@code exec(open('/x/c.py').read())}, {@code PATH=/x/bin:$PATH} and {@code /x/*.sh} each give
 * the path they hold (or, for a glob or a path with a blank, the directory it is in, which the
 * trust rule looks at on the way). A word without a slash is not taken as a path: a bare command
 * inside code is found by the interpreter on the PATH nhc gives it, the system directories.
 */
final class CodeWords {
    private static final String BREAKS = "'\"`;|&<>(){}[]$=:!*?#\\^,";

    private CodeWords() {
    }

    /** The words of {@code arg} that contain a slash, in order, each once. */
    static List<String> withSlash(String arg) {
        List<String> out = new ArrayList<>();
        int start = -1;
        boolean slash = false;
        for (int i = 0; i <= arg.length(); i++) {
            char c = i < arg.length() ? arg.charAt(i) : ' ';
            boolean breaks = Character.isWhitespace(c) || Character.isISOControl(c) || BREAKS.indexOf(c) >= 0;
            if (!breaks) {
                if (start < 0) {
                    start = i;
                    slash = false;
                }
                slash |= c == '/';
            } else if (start >= 0) {
                String word = arg.substring(start, i);
                if (slash && !out.contains(word)) {
                    out.add(word);
                }
                start = -1;
            }
        }
        return out;
    }
}
