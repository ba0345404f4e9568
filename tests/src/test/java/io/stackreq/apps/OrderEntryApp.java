package io.stackreq.apps;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An order-entry database in memory, served over JDBC to several threads at once, each with its
 * own connection: the transactions of TPC-C's order entry, smaller. Per round a thread runs 20
 * transactions, each committed: new order (45%: read item prices, update stock rows in item
 * order, insert the order and its lines), payment (43%: update a customer), order status (4%: a
 * customer's latest order and its lines), stock level (4%: count low stock of a warehouse by
 * scan) and delivery (4%: delete a warehouse's oldest order and its lines). Threads share
 * warehouses, so their transactions wait on each other's locks. A transaction the database
 * aborts for a conflict (SQLSTATE class 40) is rolled back and run again.
 *
 * <p>Two databases: H2 ({@code com.h2database:h2}, MVStore, row locks; 4 threads) and HSQLDB
 * ({@code org.hsqldb:hsqldb}, its default LOCKS transaction control: table locks; 2 threads).
 */
final class OrderEntryApp extends App {
    private static final int ITEMS = 5000;
    private static final int WAREHOUSES = 2;
    private static final int CUSTOMERS = 1000;
    private static final int TRANSACTIONS_PER_ROUND = 20;

    private final String name;
    private final String url;
    private final List<String> packages;
    private final int threads;
    private final AtomicLong orderIds = new AtomicLong(1);
    /** Conflicts the databases aborted, each run again (printed at the end). */
    private final AtomicLong retried = new AtomicLong();
    private Connection keeper;

    private OrderEntryApp(String name, String url, List<String> packages, int threads) {
        this.name = name;
        this.url = url;
        this.packages = packages;
        this.threads = threads;
    }

    static OrderEntryApp h2() {
        return new OrderEntryApp("h2", "jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000", List.of("org.h2."), 4);
    }

    static OrderEntryApp hsqldb() {
        return new OrderEntryApp("hsqldb", "jdbc:hsqldb:mem:orders", List.of("org.hsqldb."), 2);
    }

    @Override public String name() { return name; }

    @Override public List<String> ownPackages() { return packages; }

    @Override public int threads() { return threads; }

    @Override public void setUp() throws Exception {
        // The first connection creates the database and keeps it alive until tearDown.
        keeper = DriverManager.getConnection(url, "SA", "");
        try (Statement s = keeper.createStatement()) {
            s.execute("CREATE TABLE item(id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2))");
            s.execute("CREATE TABLE stock(item_id INT, warehouse INT, quantity INT, ytd INT, order_count INT,"
                    + " PRIMARY KEY(item_id, warehouse))");
            s.execute("CREATE TABLE customer(id INT, warehouse INT, name VARCHAR(40), balance DECIMAL(12,2),"
                    + " payment_count INT, PRIMARY KEY(id, warehouse))");
            s.execute("CREATE TABLE orders(id BIGINT PRIMARY KEY, warehouse INT, customer INT, line_count INT,"
                    + " total DECIMAL(12,2))");
            s.execute("CREATE INDEX orders_customer ON orders(warehouse, customer)");
            s.execute("CREATE TABLE order_line(order_id BIGINT, number INT, item_id INT, quantity INT,"
                    + " amount DECIMAL(12,2), PRIMARY KEY(order_id, number))");
        }
        keeper.setAutoCommit(false);
        SplittableRandom random = new SplittableRandom(11);
        try (PreparedStatement item = keeper.prepareStatement("INSERT INTO item VALUES (?, ?, ?)");
             PreparedStatement stock = keeper.prepareStatement("INSERT INTO stock VALUES (?, ?, ?, 0, 0)");
             PreparedStatement customer = keeper.prepareStatement("INSERT INTO customer VALUES (?, ?, ?, 0, 0)")) {
            for (int i = 0; i < ITEMS; i++) {
                item.setInt(1, i);
                item.setString(2, "item-" + Integer.toString(random.nextInt(1 << 30), 36));
                item.setBigDecimal(3, BigDecimal.valueOf(100 + random.nextInt(10000), 2));
                item.addBatch();
                for (int w = 0; w < WAREHOUSES; w++) {
                    stock.setInt(1, i);
                    stock.setInt(2, w);
                    stock.setInt(3, 10 + random.nextInt(91));
                    stock.addBatch();
                }
            }
            for (int w = 0; w < WAREHOUSES; w++) {
                for (int c = 0; c < CUSTOMERS; c++) {
                    customer.setInt(1, c);
                    customer.setInt(2, w);
                    customer.setString(3, "customer-" + w + "-" + c);
                    customer.addBatch();
                }
            }
            item.executeBatch();
            stock.executeBatch();
            customer.executeBatch();
        }
        keeper.commit();
    }

    @Override public Worker worker(int thread) throws SQLException {
        return new Terminal(thread);
    }

    @Override public void tearDown() throws Exception {
        if (name.equals("hsqldb")) {
            try (Statement s = keeper.createStatement()) {
                s.execute("SHUTDOWN");
            }
        } else {
            try (Statement s = keeper.createStatement()) {
                s.execute("DROP ALL OBJECTS");
            }
        }
        keeper.close();
        System.out.println("order-entry " + name + ": " + retried.get() + " transactions aborted and run again");
    }

    /** One client's connection and statements. */
    private final class Terminal implements Worker {
        private final Connection connection;
        private final SplittableRandom random;
        private final int home;
        private final PreparedStatement price, updateStock, insertOrder, insertLine, payment, lastOrder, lines,
                lowStock, oldest, deleteLines, deleteOrder;

        Terminal(int thread) throws SQLException {
            connection = DriverManager.getConnection(url, "SA", "");
            connection.setAutoCommit(false);
            random = new SplittableRandom(1000 + thread);
            home = thread % WAREHOUSES;
            price = connection.prepareStatement("SELECT price FROM item WHERE id = ?");
            updateStock = connection.prepareStatement("UPDATE stock SET quantity = CASE WHEN quantity > ? THEN"
                    + " quantity - ? ELSE quantity + 91 - ? END, ytd = ytd + ?, order_count = order_count + 1"
                    + " WHERE item_id = ? AND warehouse = ?");
            insertOrder = connection.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?, ?)");
            insertLine = connection.prepareStatement("INSERT INTO order_line VALUES (?, ?, ?, ?, ?)");
            payment = connection.prepareStatement("UPDATE customer SET balance = balance - ?,"
                    + " payment_count = payment_count + 1 WHERE id = ? AND warehouse = ?");
            lastOrder = connection.prepareStatement("SELECT id, total FROM orders WHERE warehouse = ? AND customer = ?"
                    + " ORDER BY id DESC FETCH FIRST 1 ROWS ONLY");
            lines = connection.prepareStatement("SELECT item_id, quantity, amount FROM order_line WHERE order_id = ?");
            lowStock = connection.prepareStatement("SELECT COUNT(*) FROM stock WHERE warehouse = ? AND quantity < ?");
            oldest = connection.prepareStatement("SELECT MIN(id) FROM orders WHERE warehouse = ?");
            deleteLines = connection.prepareStatement("DELETE FROM order_line WHERE order_id = ?");
            deleteOrder = connection.prepareStatement("DELETE FROM orders WHERE id = ?");
        }

        @Override public long round(int index) throws Exception {
            long sum = 0;
            for (int i = 0; i < TRANSACTIONS_PER_ROUND; i++) {
                int kind = random.nextInt(100);
                int warehouse = random.nextInt(100) < 85 ? home : random.nextInt(WAREHOUSES);
                int customer = random.nextInt(CUSTOMERS);
                long seed = random.nextLong();
                while (true) {
                    try {
                        sum += transaction(kind, warehouse, customer, new SplittableRandom(seed));
                        connection.commit();
                        break;
                    } catch (SQLException e) {
                        connection.rollback();
                        if (e.getSQLState() == null || !e.getSQLState().startsWith("40")) {
                            throw e;
                        }
                        retried.incrementAndGet();
                    }
                }
            }
            return sum;
        }

        private long transaction(int kind, int warehouse, int customer, SplittableRandom r) throws SQLException {
            if (kind < 45) {
                return newOrder(warehouse, customer, r);
            } else if (kind < 88) {
                payment.setBigDecimal(1, BigDecimal.valueOf(100 + r.nextInt(500000), 2));
                payment.setInt(2, customer);
                payment.setInt(3, warehouse);
                return payment.executeUpdate();
            } else if (kind < 92) {
                return orderStatus(warehouse, customer);
            } else if (kind < 96) {
                lowStock.setInt(1, warehouse);
                lowStock.setInt(2, 10 + r.nextInt(11));
                try (ResultSet rs = lowStock.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0;
                }
            } else {
                return delivery(warehouse);
            }
        }

        private long newOrder(int warehouse, int customer, SplittableRandom r) throws SQLException {
            int count = 5 + r.nextInt(11);
            int[] items = new int[count];
            for (int i = 0; i < count; i++) {
                items[i] = r.nextInt(ITEMS);
            }
            // Stock rows are locked in item order: concurrent new orders never wait on each other in a cycle.
            Arrays.sort(items);
            long id = orderIds.getAndIncrement();
            BigDecimal total = BigDecimal.ZERO;
            for (int i = 0; i < count; i++) {
                int quantity = 1 + r.nextInt(10);
                price.setInt(1, items[i]);
                BigDecimal amount;
                try (ResultSet rs = price.executeQuery()) {
                    rs.next();
                    amount = rs.getBigDecimal(1).multiply(BigDecimal.valueOf(quantity));
                }
                total = total.add(amount);
                updateStock.setInt(1, quantity + 10);
                updateStock.setInt(2, quantity);
                updateStock.setInt(3, quantity);
                updateStock.setInt(4, quantity);
                updateStock.setInt(5, items[i]);
                updateStock.setInt(6, warehouse);
                updateStock.executeUpdate();
                insertLine.setLong(1, id);
                insertLine.setInt(2, i);
                insertLine.setInt(3, items[i]);
                insertLine.setInt(4, quantity);
                insertLine.setBigDecimal(5, amount);
                insertLine.addBatch();
            }
            insertOrder.setLong(1, id);
            insertOrder.setInt(2, warehouse);
            insertOrder.setInt(3, customer);
            insertOrder.setInt(4, count);
            insertOrder.setBigDecimal(5, total);
            insertOrder.executeUpdate();
            insertLine.executeBatch();
            return count;
        }

        private long orderStatus(int warehouse, int customer) throws SQLException {
            lastOrder.setInt(1, warehouse);
            lastOrder.setInt(2, customer);
            long order;
            try (ResultSet rs = lastOrder.executeQuery()) {
                if (!rs.next()) {
                    return 0;
                }
                order = rs.getLong(1);
            }
            long sum = 0;
            lines.setLong(1, order);
            try (ResultSet rs = lines.executeQuery()) {
                while (rs.next()) {
                    sum += rs.getInt(2);
                }
            }
            return sum;
        }

        private long delivery(int warehouse) throws SQLException {
            oldest.setInt(1, warehouse);
            long order;
            try (ResultSet rs = oldest.executeQuery()) {
                rs.next();
                order = rs.getLong(1);
                if (rs.wasNull()) {
                    return 0;
                }
            }
            deleteLines.setLong(1, order);
            int deleted = deleteLines.executeUpdate();
            deleteOrder.setLong(1, order);
            return deleted + deleteOrder.executeUpdate();
        }

        @Override public void close() throws SQLException {
            connection.close();
        }
    }
}
