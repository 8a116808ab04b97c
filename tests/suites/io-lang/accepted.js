// 1000_A. Codehorses T-shirts
const words = require('fs').readFileSync(0, 'utf8').split(/\s+/).filter((w) => w);
const n = Number(words[0]);
const have = new Map();
for (let i = 1; i <= n; i++) have.set(words[i], (have.get(words[i]) || 0) + 1);
let changes = 0;
for (let i = n + 1; i <= 2 * n; i++) {
  const k = have.get(words[i]) || 0;
  if (k > 0) have.set(words[i], k - 1);
  else changes++;
}
console.log(changes);
