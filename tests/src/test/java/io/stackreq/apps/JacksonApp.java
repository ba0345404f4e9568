package io.stackreq.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Jackson data binding ({@code com.fasterxml.jackson.core:jackson-databind}): per round parse a ~100 KB
 * document to objects and to a tree, modify, write both back. One thread.
 */
final class JacksonApp extends App implements App.Worker {
    public static final class Line {
        public String sku;
        public int quantity;
        public double price;
        public List<String> tags;
    }

    public static final class Order {
        public long id;
        public String customer;
        public String email;
        public boolean paid;
        public double total;
        public List<Line> lines;
    }

    private final ObjectMapper mapper = new ObjectMapper();
    private byte[] document;

    @Override public String name() { return "jackson"; }

    @Override public List<String> ownPackages() { return List.of("com.fasterxml.jackson."); }

    @Override public Worker worker(int thread) { return this; }

    @Override public void setUp() throws Exception {
        SplittableRandom random = new SplittableRandom(3);
        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            Order order = new Order();
            order.id = 100000L + i;
            order.customer = "customer \"" + random.nextInt(5000) + "\" \u00e9";
            order.email = "c" + random.nextInt(5000) + "@example.org";
            order.paid = random.nextBoolean();
            order.lines = new ArrayList<>();
            for (int l = 0, n = 1 + random.nextInt(5); l < n; l++) {
                Line line = new Line();
                line.sku = "SKU-" + random.nextInt(1 << 20);
                line.quantity = 1 + random.nextInt(9);
                line.price = Math.round(random.nextDouble() * 10000) / 100.0;
                line.tags = List.of("t" + random.nextInt(50), "t" + random.nextInt(50));
                order.lines.add(line);
                order.total += line.price * line.quantity;
            }
            orders.add(order);
        }
        document = mapper.writeValueAsBytes(orders);
    }

    @Override public long round(int index) throws Exception {
        Order[] orders = mapper.readValue(document, Order[].class);
        for (Order order : orders) order.paid = !order.paid;
        byte[] written = mapper.writeValueAsBytes(orders);
        JsonNode tree = mapper.readTree(written);
        long sum = 0;
        for (JsonNode order : tree) sum += order.get("lines").size() + order.get("customer").asText().length();
        byte[] again = mapper.writeValueAsBytes(tree);
        return sum + written.length + again.length + index;
    }
}
