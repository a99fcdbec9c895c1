import mysql from 'mysql2/promise';
import { describeMysql } from '@hilo/testing';

describeMysql('harness: mysql', (db) => {
  it('gives each test file a fresh database', async () => {
    const connection = await mysql.createConnection({ uri: db.url });
    const [rows] = await connection.query('select database() as name');
    await connection.end();
    expect((rows as Array<{ name: string }>)[0]?.name).toBe(db.name);
  });
});
