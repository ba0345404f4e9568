package bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.SplittableRandom;

/** H2 in memory: per round 200 inserts (batched), 200 point queries, 2 range aggregates, 200 deletes. */
final class H2Workload extends Workload {
    private static final int ROWS = 200;
    private Connection connection;
    private PreparedStatement insert, point, range, delete;
    private final SplittableRandom random = new SplittableRandom(42);
    private final String database;

    H2Workload() { this("bench"); }

    /** Workloads on several threads of one JVM each need a database of their own. */
    H2Workload(String database) { this.database = database; }

    @Override protected String name() { return "h2"; }

    @Override protected void setUp() throws Exception {
        connection = DriverManager.getConnection("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE orders(id BIGINT PRIMARY KEY, customer INT, item VARCHAR(64), amount DOUBLE)");
            s.execute("CREATE INDEX orders_customer ON orders(customer)");
            // A resident part the queries also touch.
            s.execute("INSERT INTO orders SELECT X + 1000000000, MOD(X, 997), 'base-' || X, X * 0.5 "
                    + "FROM SYSTEM_RANGE(1, 20000)");
        }
        insert = connection.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?)");
        point = connection.prepareStatement("SELECT item, amount FROM orders WHERE id = ?");
        range = connection.prepareStatement("SELECT COUNT(*), SUM(amount) FROM orders WHERE customer BETWEEN ? AND ?");
        delete = connection.prepareStatement("DELETE FROM orders WHERE id = ?");
    }

    @Override protected long round(int index) throws Exception {
        long base = (long) index * ROWS;
        for (int i = 0; i < ROWS; i++) {
            insert.setLong(1, base + i);
            insert.setInt(2, random.nextInt(997));
            insert.setString(3, "item-" + random.nextInt(100000));
            insert.setDouble(4, random.nextDouble() * 100);
            insert.addBatch();
        }
        insert.executeBatch();
        long sum = 0;
        for (int i = 0; i < ROWS; i++) {
            point.setLong(1, base + random.nextInt(ROWS));
            try (ResultSet rs = point.executeQuery()) {
                if (rs.next()) sum += rs.getString(1).length();
            }
        }
        for (int i = 0; i < 2; i++) {
            int from = random.nextInt(900);
            range.setInt(1, from);
            range.setInt(2, from + 50);
            try (ResultSet rs = range.executeQuery()) {
                if (rs.next()) sum += rs.getLong(1);
            }
        }
        for (int i = 0; i < ROWS; i++) {
            delete.setLong(1, base + i);
            delete.addBatch();
        }
        delete.executeBatch();
        return sum;
    }

    @Override protected void tearDown() throws Exception { connection.close(); }
}
