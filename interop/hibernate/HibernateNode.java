import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;

/**
 * A real Hibernate 3.6 writing rows for the interop tests: one SessionFactory per configuration, each on its
 * own thread, all at once. Arguments: JDBC URL (with user and password), dialect class, rows per configuration, then one
 * configuration each: table;generatorClass;param=value,param=value. It first inserts one row per
 * configuration (so each generator has fetched and Hibernate's schema export has run), prints READY, waits
 * for a line on stdin, then inserts the rest and prints DONE. Hibernate's own errors go to stderr.
 */
public class HibernateNode {
  public static void main(String[] args) throws Exception {
    String url = args[0], dialect = args[1];
    int rows = Integer.parseInt(args[2]);
    List<SessionFactory> factories = new ArrayList<>();
    List<String> entities = new ArrayList<>();
    for (int i = 3; i < args.length; i++) {
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
          .setProperty("hibernate.connection.pool_size", "2")
          .setProperty("hibernate.hbm2ddl.auto", "update");
      cfg.addXML(xml);
      factories.add(cfg.buildSessionFactory());
      entities.add(entity);
    }
    for (int i = 0; i < factories.size(); i++) insert(factories.get(i), entities.get(i));
    System.out.println("READY");
    System.out.flush();
    new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int i = 0; i < factories.size(); i++) {
      final SessionFactory factory = factories.get(i);
      final String entity = entities.get(i);
      Thread t = new Thread(() -> {
        try {
          for (int r = 1; r < rows; r++) insert(factory, entity);
        } catch (Throwable e) {
          synchronized (failures) { failures.add(e); }
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    for (SessionFactory f : factories) f.close();
    if (!failures.isEmpty()) {
      failures.get(0).printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE");
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
