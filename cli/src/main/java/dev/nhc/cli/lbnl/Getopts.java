package dev.nhc.cli.lbnl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * bash's {@code getopts} over a check's arguments, as LBNL NHC's functions call it (silent mode,
 * spec like {@code ":0rf:s:"}): options stop at the first word that is not one ({@code --} ends
 * them too), clustered flags ({@code -rw}) and attached values ({@code -fVALUE}) work.
 */
public final class Getopts {
    /**
     * @param options each option letter with its values in order (flags get an empty string per use)
     * @param rest    the words after the options
     * @param error   what LBNL NHC's function would die with (null when none)
     */
    public record Result(Map<Character, List<String>> options, List<String> rest, String error) {
        public boolean has(char option) {
            return options.containsKey(option);
        }

        public List<String> all(char option) {
            return options.getOrDefault(option, List.of());
        }

        public String last(char option) {
            List<String> v = all(option);
            return v.isEmpty() ? null : v.get(v.size() - 1);
        }
    }

    private Getopts() {
    }

    public static Result parse(String spec, List<String> args) {
        Map<Character, List<String>> opts = new LinkedHashMap<>();
        int i = 0;
        while (i < args.size()) {
            String a = args.get(i);
            if (a.equals("--")) {
                i++;
                break;
            }
            if (a.length() < 2 || a.charAt(0) != '-') {
                break;
            }
            for (int k = 1; k < a.length(); k++) {
                char o = a.charAt(k);
                int at = spec.indexOf(o);
                if (o == ':' || at < 0) {
                    return new Result(opts, List.of(), "invalid option -" + o);
                }
                boolean takesValue = at + 1 < spec.length() && spec.charAt(at + 1) == ':';
                if (!takesValue) {
                    opts.computeIfAbsent(o, x -> new ArrayList<>()).add("");
                    continue;
                }
                String value;
                if (k + 1 < a.length()) {
                    value = a.substring(k + 1);
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    return new Result(opts, List.of(), "option -" + o + " requires an argument");
                }
                opts.computeIfAbsent(o, x -> new ArrayList<>()).add(value);
                break;
            }
            i++;
        }
        return new Result(opts, List.copyOf(args.subList(i, args.size())), null);
    }
}
