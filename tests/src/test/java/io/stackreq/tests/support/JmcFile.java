package io.stackreq.tests.support;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.openjdk.jmc.common.IMCStackTrace;
import org.openjdk.jmc.common.IMCThread;
import org.openjdk.jmc.common.item.IAccessorKey;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.item.IType;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.flightrecorder.CouldNotLoadRecordingException;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.stacktrace.FrameSeparator;
import org.openjdk.jmc.flightrecorder.stacktrace.FrameSeparator.FrameCategorization;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.Node;
import org.openjdk.jmc.flightrecorder.stacktrace.tree.StacktraceTreeModel;

/** Reads recordings with JMC core, the parser the JMC desktop uses. */
public final class JmcFile {
    private JmcFile() {
    }

    /** One jdk.StackTraceRequest item as JMC sees it. */
    public record Request(long userData, boolean failed, boolean biased, IMCStackTrace stackTrace, IMCThread thread) {
    }

    public static IItemCollection load(Path file) {
        try {
            return JfrLoaderToolkit.loadEvents(new File(file.toString()));
        } catch (IOException | CouldNotLoadRecordingException e) {
            throw new AssertionError("JMC cannot load " + file + ": " + e, e);
        }
    }

    public static IItemCollection requestItems(IItemCollection all) {
        return all.apply(ItemFilters.type(JfrFile.REQUEST));
    }

    public static List<Request> requests(IItemCollection all) {
        List<Request> requests = new ArrayList<>();
        for (IItemIterable items : requestItems(all)) {
            IType<IItem> type = items.getType();
            IMemberAccessor<?, IItem> userData = field(type, "userData");
            IMemberAccessor<?, IItem> failed = field(type, "failed");
            IMemberAccessor<?, IItem> biased = field(type, "biased");
            IMemberAccessor<IMCStackTrace, IItem> stack = JfrAttributes.EVENT_STACKTRACE.getAccessor(type);
            IMemberAccessor<IMCThread, IItem> thread = JfrAttributes.EVENT_THREAD.getAccessor(type);
            for (IItem item : items) {
                requests.add(new Request(asLong(userData.getMember(item)),
                        (Boolean) failed.getMember(item), (Boolean) biased.getMember(item),
                        stack == null ? null : stack.getMember(item), thread == null ? null : thread.getMember(item)));
            }
        }
        return requests;
    }

    private static long asLong(Object value) {
        if (value instanceof IQuantity) {
            return ((IQuantity) value).longValue();
        }
        return ((Number) value).longValue();
    }

    private static IMemberAccessor<?, IItem> field(IType<IItem> type, String name) {
        for (IAccessorKey<?> key : type.getAccessorKeys().keySet()) {
            if (key.getIdentifier().equals(name)) {
                return type.getAccessor(key);
            }
        }
        throw new AssertionError("JMC type " + type.getIdentifier() + " has no field " + name + ": "
                + type.getAccessorKeys().keySet());
    }

    /**
     * JMC's stack-trace tree, inverted: the root's children are the top frames of the stacks,
     * aggregated by method, with the number of stacks as weight.
     */
    public static Node topFrameTree(IItemCollection items) {
        FrameSeparator byMethod = new FrameSeparator(FrameCategorization.METHOD, false);
        return new StacktraceTreeModel(items, byMethod, true).getRoot();
    }

    /** "package.Class.method" of a tree node's frame. */
    public static String methodOf(Node node) {
        var method = node.getFrame().getMethod();
        return method.getType().getFullName() + "." + method.getMethodName();
    }
}
