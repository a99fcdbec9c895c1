import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;

/**
 * A real Hibernate 3.6 that inserts rows when told to, so a test can order what Hibernate and hilo do and reuse
 * one JVM for many configurations. Arguments: JDBC URL (with user and password), dialect class, then one
 * configuration each: table;generatorClass;param=value,param=value. Every SessionFactory is built at start
 * (Hibernate's schema update runs then; no generator has fetched yet), then it prints READY and reads commands:
 * "insert INDEX ROWS THREADS" inserts ROWS rows through configuration INDEX (0-based), split over THREADS threads
 * of that SessionFactory, and prints "OK INDEX" or "ERR INDEX message"; "quit" closes everything and exits.
 */
public class HibernateServer {
  public static void main(String[] args) throws Exception {
    String url = args[0], dialect = args[1];
    List<SessionFactory> factories = new ArrayList<>();
    List<String> entities = new ArrayList<>();
    for (int i = 2; i < args.length; i++) {
      String[] parts = args[i].split(";", -1);
      StringBuilder params = new StringBuilder();
      if (parts.length > 2 && !parts[2].isEmpty()) {
        for (String kv : parts[2].split(",")) {
          String[] p = kv.split("=", 2);
          params.append("<param name=\"").append(p[0]).append("\">").append(p[1]).append("</param>");
        }
      }
      String entity = "Row" + i;
      String xml = "<?xml version=\"1.0\"?>"
          + "<!DOCTYPE hibernate-mapping PUBLIC \"-//Hibernate/Hibernate Mapping DTD 3.0//EN\" \"http://www.hibernate.org/dtd/hibernate-mapping-3.0.dtd\">"
          + "<hibernate-mapping><class entity-name=\"" + entity + "\" table=\"" + parts[0] + "\">"
          + "<id name=\"id\" column=\"id\" type=\"long\"><generator class=\"" + parts[1] + "\">" + params + "</generator></id>"
          + "<property name=\"who\" column=\"who\" type=\"string\"/></class></hibernate-mapping>";
      Configuration cfg = new Configuration()
          .setProperty("hibernate.connection.url", url)
          .setProperty("hibernate.dialect", dialect)
          .setProperty("hibernate.default_entity_mode", "dynamic-map")
          .setProperty("hibernate.connection.pool_size", "4")
          .setProperty("hibernate.hbm2ddl.auto", "update");
      cfg.addXML(xml);
      factories.add(cfg.buildSessionFactory());
      entities.add(entity);
    }
    System.out.println("READY");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] cmd = line.trim().split(" ");
      if (cmd[0].equals("quit")) break;
      if (!cmd[0].equals("insert")) {
        System.out.println("ERR - unknown command " + line);
        System.out.flush();
        continue;
      }
      final int index = Integer.parseInt(cmd[1]);
      final int rows = Integer.parseInt(cmd[2]);
      final int threadCount = Integer.parseInt(cmd[3]);
      final List<Throwable> failures = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < threadCount; t++) {
        final int share = rows / threadCount + (t < rows % threadCount ? 1 : 0);
        Thread thread = new Thread(() -> {
          try {
            for (int r = 0; r < share; r++) insert(factories.get(index), entities.get(index));
          } catch (Throwable e) {
            synchronized (failures) { failures.add(e); }
          }
        });
        threads.add(thread);
        thread.start();
      }
      for (Thread thread : threads) thread.join();
      if (failures.isEmpty()) {
        System.out.println("OK " + index);
      } else {
        failures.get(0).printStackTrace();
        System.out.println("ERR " + index + " " + String.valueOf(failures.get(0)).replace('\n', ' '));
      }
      System.out.flush();
    }
    for (SessionFactory f : factories) f.close();
    System.out.println("BYE");
    System.out.flush();
  }

  private static void insert(SessionFactory factory, String entity) {
    Session session = factory.openSession();
    Transaction tx = session.beginTransaction();
    Map<String, Object> row = new HashMap<>();
    row.put("who", "hibernate");
    session.save(entity, row);
    tx.commit();
    session.close();
  }
}
