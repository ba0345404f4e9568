package io.stackreq.profile;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

import io.stackreq.model.InputException;

/**
 * A running JVM reached through the JDK's attach API: loads agents and runs diagnostic commands
 * (what {@code jcmd} sends). Every failure is an {@link InputException} naming the JVM and the
 * cause in one line.
 *
 * <p>The diagnostic commands go through {@code sun.tools.attach.HotSpotVirtualMachine.executeJCmd},
 * which the JDK does not export: stackreq.jar's manifest opens it ({@code Add-Exports}).
 */
public final class AttachedJvm implements AutoCloseable {
    /** The oldest Java the agents are built and tested for. */
    static final int MIN_FEATURE = 11;
    private static final int SIGQUIT_BIT = 3 - 1;

    private final long pid;
    private final VirtualMachine vm;
    private final int feature;

    private AttachedJvm(long pid, VirtualMachine vm, int feature) {
        this.pid = pid;
        this.vm = vm;
        this.feature = feature;
    }

    /**
     * Attaches to pid after checking that it is a process of this user that catches SIGQUIT: the
     * attach mechanism starts by sending SIGQUIT, whose default action would end a process that is
     * not a JVM.
     */
    public static AttachedJvm attach(long pid) {
        checkLooksLikeJvm(pid);
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException e) {
            throw new InputException("cannot attach to JVM " + pid + ": " + firstLine(e.getMessage())
                    + hintForNoAttach(e.getMessage()), e);
        } catch (IOException e) {
            throw new InputException("cannot attach to JVM " + pid + ": " + firstLine(e.getMessage()), e);
        }
        Properties properties;
        try {
            properties = vm.getSystemProperties();
        } catch (IOException e) {
            detachQuietly(vm);
            throw new InputException("cannot read the system properties of JVM " + pid + ": "
                    + firstLine(e.getMessage()), e);
        }
        int feature = featureOf(properties.getProperty("java.specification.version", "0"));
        if (feature < MIN_FEATURE) {
            detachQuietly(vm);
            throw new InputException("JVM " + pid + " runs Java " + properties.getProperty("java.version")
                    + "; stackreq's agents need Java " + MIN_FEATURE + " or newer");
        }
        return new AttachedJvm(pid, vm, feature);
    }

    public long pid() {
        return pid;
    }

    /** The target's Java feature release (17, 25, ...). */
    public int feature() {
        return feature;
    }

    /** {@code loadAgentPath}: the agent's {@code Agent_OnAttach} runs in the target with options. */
    public void loadAgent(Path library, String options) {
        try {
            vm.loadAgentPath(library.toString(), options);
        } catch (AgentInitializationException e) {
            throw new InputException(library.getFileName() + " refused to start in JVM " + pid + " (return code "
                    + e.returnValue() + "); its one-line reason is on the JVM's standard error", e);
        } catch (AgentLoadException | IOException e) {
            throw new InputException("cannot load " + library + " into JVM " + pid + ": "
                    + firstLine(e.getMessage()), e);
        }
    }

    /**
     * Runs a diagnostic command and returns its output. {@code expected} must appear in it (the JDK
     * reports most command errors as output): otherwise the output's first line is the error.
     */
    public String diagnosticCommand(String command, String expected) {
        String output;
        try {
            Method execute = vm.getClass().getMethod("executeJCmd", String.class);
            try (InputStream in = (InputStream) execute.invoke(vm, command)) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw new InputException("JVM " + pid + " refused '" + command + "': " + firstLine(String.valueOf(
                    cause.getMessage())), cause);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new InputException("cannot send diagnostic commands (" + e + "); run stackreq with java -jar "
                    + "stackreq.jar, whose manifest allows it", e);
        } catch (IOException e) {
            throw new InputException("JVM " + pid + " did not complete '" + command + "': " + firstLine(
                    e.getMessage()), e);
        }
        if (!output.contains(expected)) {
            String reason = output.lines().filter(line -> !line.isBlank()).findFirst().orElse("no output");
            throw new InputException("JVM " + pid + " refused '" + command + "': " + reason);
        }
        return output;
    }

    @Override
    public void close() {
        detachQuietly(vm);
    }

    private static void detachQuietly(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException e) {
            // The JVM may have exited; nothing is left to release on this side.
        }
    }

    private static void checkLooksLikeJvm(long pid) {
        if (pid <= 0 || ProcessHandle.of(pid).isEmpty()) {
            throw new InputException("no process with pid " + pid);
        }
        if (pid == ProcessHandle.current().pid()) {
            throw new InputException("pid " + pid + " is stackreq itself");
        }
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            // Even root, whom the attach mechanism lets in, would get nothing: the JVM writes the
            // recording and the samples itself, into files of the user running stackreq.
            String owner = Files.getOwner(proc).getName();
            if (!owner.equals(System.getProperty("user.name"))) {
                throw new InputException("process " + pid + " belongs to user " + owner + ": run stackreq as "
                        + owner + " (the JVM itself writes the recording and the samples)");
            }
            if (!catchesSigquit(Files.readAllLines(proc.resolve("status")))) {
                throw new InputException("process " + pid + " is not a JVM (it does not handle SIGQUIT, which "
                        + "every HotSpot JVM does; " + commandOf(proc) + ")");
            }
        } catch (NoSuchFileException e) {
            throw new InputException("no process with pid " + pid);
        } catch (IOException e) {
            throw new InputException("cannot inspect process " + pid + ": " + e.getMessage(), e);
        }
    }

    static boolean catchesSigquit(List<String> status) {
        for (String line : status) {
            if (line.startsWith("SigCgt:")) {
                long caught = Long.parseUnsignedLong(line.substring("SigCgt:".length()).trim(), 16);
                return (caught & (1L << SIGQUIT_BIT)) != 0;
            }
        }
        return false;
    }

    private static String commandOf(Path proc) {
        try {
            String command = Files.readString(proc.resolve("comm")).trim();
            return "command '" + command + "'";
        } catch (IOException e) {
            return "command unknown";
        }
    }

    private static String hintForNoAttach(String message) {
        return message != null && message.contains("does not support the attach mechanism")
                ? " (started with -XX:+DisableAttachMechanism?)" : "";
    }

    static int featureOf(String specificationVersion) {
        String version = specificationVersion.startsWith("1.") ? specificationVersion.substring(2)
                : specificationVersion;
        try {
            return Integer.parseInt(version.split("\\.")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "no reason given";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
