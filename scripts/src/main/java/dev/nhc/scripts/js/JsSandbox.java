package dev.nhc.scripts.js;

import dev.nhc.scripts.JsRunner;
import dev.nhc.scripts.ScriptFailure;
import dev.nhc.units.Durations;

import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.SourceSection;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyExecutable;


import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Runs one script.js check in GraalJS with nothing granted: no host classes or objects, no I/O,
 * no processes, threads, native code or environment. The only ways out are the functions put
 * into its global scope: {@code readFile(path)} and {@code listDir(path)}, which answer only
 * below the paths the config allows. A watchdog cancels the context at the time limit.
 *
 * <p>This is the only class that touches org.graalvm: it is loaded on the first script.js run,
 * so configs without script.js never load the polyglot engine. In an installation it is defined
 * by the class loader that holds GraalJS (see {@link dev.nhc.scripts.GraalJs}), so it uses only
 * public types of nhc.
 */
public final class JsSandbox implements JsRunner {

    /** One engine per process: in the daemon, later runs reuse its parsed code and warm state. */
    private static final class Shared {
        static final Engine ENGINE = Engine.newBuilder("js")
                .option("engine.WarnInterpreterOnly", "false")
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .build();
        static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nhc script.js watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String run(String source, String name, String observationsJson, String varsJson, String node,
                      Function<String, String> readFile, Function<String, List<String>> listDir, Duration timeout) throws ScriptFailure {
        Context context = Context.newBuilder("js")
                .engine(Shared.ENGINE)
                .allowHostAccess(HostAccess.NONE)
                .allowHostClassLookup(className -> false)
                .allowIO(IOAccess.NONE)
                .allowCreateProcess(false)
                .allowCreateThread(false)
                .allowNativeAccess(false)
                .allowEnvironmentAccess(EnvironmentAccess.NONE)
                .allowPolyglotAccess(PolyglotAccess.NONE)
                .in(InputStream.nullInputStream())
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .build();
        // the language's one-time set-up is nhc's cost, not the script's: the limit starts after it
        context.initialize("js");
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> watchdog = Shared.WATCHDOG.schedule(() -> {
            timedOut.set(true);
            context.close(true);
        }, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        try {
            Value json = context.eval("js", "JSON");
            Value bindings = context.getBindings("js");
            bindings.putMember("observations", json.invokeMember("parse", observationsJson));
            bindings.putMember("vars", json.invokeMember("parse", varsJson));
            bindings.putMember("node", node);
            bindings.putMember("readFile", (ProxyExecutable) args -> readFile.apply(stringArg(args, "readFile")));
            bindings.putMember("listDir", (ProxyExecutable) args -> ProxyArray.fromList(new java.util.ArrayList<Object>(listDir.apply(stringArg(args, "listDir")))));
            Value result = context.eval(Source.newBuilder("js", source, name).buildLiteral());
            Value text = json.invokeMember("stringify", result);
            return text.isNull() ? "null" : text.asString();
        } catch (PolyglotException e) {
            if (timedOut.get() || e.isCancelled()) {
                throw new ScriptFailure(name + " did not finish within " + Durations.human(timeout) + " and was stopped");
            }
            throw new ScriptFailure(describe(name, e));
        } catch (IllegalStateException e) {
            if (timedOut.get()) {
                throw new ScriptFailure(name + " did not finish within " + Durations.human(timeout) + " and was stopped");
            }
            throw new ScriptFailure(name + ": " + e.getMessage());
        } finally {
            watchdog.cancel(false);
            try {
                context.close(true);
            } catch (RuntimeException e) {
                // already closed by the watchdog
            }
        }
    }

    private static String stringArg(Value[] args, String fn) {
        if (args.length != 1 || !args[0].isString()) {
            throw new IllegalArgumentException(fn + "(path) takes one string");
        }
        return args[0].asString();
    }

    private static String describe(String name, PolyglotException e) {
        SourceSection at = e.getSourceLocation();
        if (at == null) {
            // host exceptions (readFile denied) and thrown errors carry their place in the guest stack
            for (PolyglotException.StackFrame f : e.getPolyglotStackTrace()) {
                if (f.isGuestFrame() && f.getSourceLocation() != null && name.equals(f.getSourceLocation().getSource().getName())) {
                    at = f.getSourceLocation();
                    break;
                }
            }
        }
        String where = at != null && at.isAvailable() ? ":" + at.getStartLine() + ":" + at.getStartColumn() : "";
        if (e.isHostException()) {
            Throwable host = e.asHostException();
            return name + where + ": " + host.getMessage();
        }
        if (e.isSyntaxError()) {
            return name + where + ": syntax error: " + e.getMessage();
        }
        return name + where + ": " + e.getMessage();
    }
}
