const { readFileSync } = require('node:fs');
const st = () => { const s = readFileSync('/proc/self/status', 'utf8'); return [Number(/^VmRSS:\s+(\d+)/m.exec(s)[1]) / 1024, Number(/^RssFile:\s+(\d+)/m.exec(s)[1]) / 1024]; };
const v8 = require('node:v8');
require('node:http'); require('node:https'); require('node:tls'); require('better-sqlite3');
gc(); gc(); let [a, f] = st(); let h = v8.getHeapStatistics().total_physical_size;
for (const m of process.argv.slice(2)) { require(m); gc(); gc(); const [b, ff] = st(); const hh = v8.getHeapStatistics().total_physical_size; console.log(m.padEnd(40), 'rss +', (b - a).toFixed(1), 'file +', (ff - f).toFixed(1), 'heap committed +', ((hh - h) / 1048576).toFixed(2), Object.keys(require.cache).length); a = b; f = ff; h = hh; }
