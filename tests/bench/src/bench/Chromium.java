package bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Headless Chromium driven over the DevTools protocol (a WebSocket): opens a page in a new tab
 * and reads, inside the page, how long it took from the navigation's start to the end of its load
 * event (the HTML parsed and its scripts run) and to the second animation frame after it (the
 * first frame drawn after the load: layout and paint done), the JavaScript heap in use then, and
 * what the page logged as errors. Every wait has a time limit; a page that hangs fails the run.
 */
final class Chromium implements AutoCloseable {
    private static final Path EXECUTABLE = Path.of("/usr/bin/chromium");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration LIMIT = Duration.ofSeconds(180);
    private static final String AFTER_LOAD_FRAME = "new Promise(resolve => requestAnimationFrame(() => "
            + "requestAnimationFrame(() => resolve(JSON.stringify({painted: performance.now(), "
            + "loaded: performance.getEntriesByType('navigation')[0].loadEventEnd})))))";

    /** One page load: milliseconds from the navigation's start, heap in bytes, error messages. */
    record Load(double loadedMillis, double paintedMillis, long heapBytes, List<String> errors) {}

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> replies = new ConcurrentHashMap<>();
    private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

    Chromium(Path profileDir) throws Exception {
        if (!Files.isExecutable(EXECUTABLE)) {
            throw new IOException(EXECUTABLE + " is missing: install Debian's chromium (tests/run does when missing)");
        }
        Files.createDirectories(profileDir);
        Path portFile = profileDir.resolve("DevToolsActivePort");
        Files.deleteIfExists(portFile);
        process = new ProcessBuilder(EXECUTABLE.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--remote-debugging-port=0", "--user-data-dir=" + profileDir, "--window-size=1400,900", "about:blank")
                .redirectOutput(profileDir.resolve("chromium.out").toFile())
                .redirectError(profileDir.resolve("chromium.err").toFile()).start();
        long deadline = System.nanoTime() + LIMIT.toNanos();
        List<String> lines = List.of();
        while (lines.size() < 2) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                process.destroyForcibly();
                throw new IOException("chromium wrote no DevToolsActivePort in " + profileDir + " (see chromium.err)");
            }
            Thread.sleep(50);
            if (Files.exists(portFile)) lines = Files.readAllLines(portFile);
        }
        URI endpoint = URI.create("ws://127.0.0.1:" + lines.get(0).trim() + lines.get(1).trim());
        socket = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(LIMIT)
                .buildAsync(endpoint, new Listener()).get(LIMIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Opens url in a new tab, waits for its load event and the frame after it, closes the tab. */
    Load load(String url) throws Exception {
        String target = call(null, "Target.createTarget", Map.of("url", "about:blank")).path("targetId").asText();
        String session = call(null, "Target.attachToTarget", Map.of("targetId", target, "flatten", true))
                .path("sessionId").asText();
        try {
            call(session, "Runtime.enable", Map.of());
            call(session, "Page.enable", Map.of());
            events.clear();
            call(session, "Page.navigate", Map.of("url", url));
            List<String> errors = new ArrayList<>();
            long deadline = System.nanoTime() + LIMIT.toNanos();
            // The load event that counts is the first after the page's main frame navigated to url.
            boolean navigated = false;
            for (boolean loaded = false; !loaded; ) {
                JsonNode event = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (event == null) throw new IOException("no load event within " + LIMIT.toSeconds() + " s: " + url);
                if (!session.equals(event.path("sessionId").asText())) continue;
                JsonNode frame = event.path("params").path("frame");
                if (event.path("method").asText().equals("Page.frameNavigated") && !frame.has("parentId")) {
                    navigated = frame.path("url").asText().startsWith(url.split("\\?")[0]);
                }
                loaded = collect(event, errors) && navigated;
            }
            JsonNode frame = call(session, "Runtime.evaluate",
                    Map.of("expression", AFTER_LOAD_FRAME, "awaitPromise", true, "returnByValue", true));
            JsonNode times = JSON.readTree(frame.path("result").path("value").asText());
            long heap = call(session, "Runtime.getHeapUsage", Map.of()).path("usedSize").asLong();
            for (JsonNode event; (event = events.poll()) != null; ) {
                if (session.equals(event.path("sessionId").asText())) collect(event, errors);
            }
            return new Load(times.path("loaded").asDouble(), times.path("painted").asDouble(), heap, errors);
        } finally {
            call(null, "Target.closeTarget", Map.of("targetId", target));
        }
    }

    /** Adds the event's error, if it is one; true for the page's load event. */
    private static boolean collect(JsonNode event, List<String> errors) {
        String method = event.path("method").asText();
        JsonNode params = event.path("params");
        if (method.equals("Runtime.exceptionThrown")) {
            errors.add(params.path("exceptionDetails").path("exception").path("description")
                    .asText(params.path("exceptionDetails").path("text").asText()));
        } else if (method.equals("Runtime.consoleAPICalled") && params.path("type").asText().equals("error")) {
            errors.add(params.path("args").toString());
        }
        return method.equals("Page.loadEventFired");
    }

    private JsonNode call(String session, String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", JSON.valueToTree(params));
        if (session != null) message.put("sessionId", session);
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        replies.put(id, reply);
        socket.sendText(JSON.writeValueAsString(message), true).get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        JsonNode answer = reply.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        if (answer.has("error")) throw new IOException(method + ": " + answer.path("error"));
        return answer.path("result");
    }

    @Override
    public void close() throws InterruptedException {
        socket.abort();
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    JsonNode message = JSON.readTree(partial.toString());
                    if (message.has("id")) {
                        CompletableFuture<JsonNode> reply = replies.remove(message.path("id").asInt());
                        if (reply != null) reply.complete(message);
                    } else {
                        events.add(message);
                    }
                } catch (IOException e) {
                    replies.values().forEach(reply -> reply.completeExceptionally(e));
                }
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
