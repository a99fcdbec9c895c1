import { peerCheckSuite } from './peer-check-suite.js';

peerCheckSuite('postgres');
