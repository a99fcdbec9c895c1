/** True when running under CI (`CI=true`): a test database that cannot be reached fails the run there. */
export const isCI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/** The MariaDB/MySQL URL used on this project's machines, shown in hints. */
export const defaultMysqlUrlHint = 'mysql://root@127.0.0.1:3306/test';

/** Environment variables the global set-up passes to test workers. */
export const envKeys = {
  pgUrl: 'HILO_PG_URL',
  mysqlUrl: 'HILO_MYSQL_URL',
  pgProblem: 'HILO_TEST_PG_PROBLEM',
  mysqlProblem: 'HILO_TEST_MYSQL_PROBLEM',
} as const;
