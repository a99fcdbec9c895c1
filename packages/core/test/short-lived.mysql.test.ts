import { describeMysql } from '@hilo/testing';
import { shortLivedSuite } from './short-lived-suite.js';

describeMysql('short-lived processes on MariaDB', (db) => shortLivedSuite(db));
