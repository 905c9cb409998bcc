// Validates .glb files with the Khronos glTF Validator (npm gltf-validator, installed by
// tools/setup.sh into tools/viewer/node_modules): `node validate_gltf.mjs FILE.glb...`.
// Prints the validator's counts per file and every error; exits 1 when any file has an error,
// 2 when a file cannot be read.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = require('gltf-validator');

let failed = false;
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate_gltf.mjs FILE.glb...');
  process.exit(2);
}
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    console.error(`error: ${file}: ${e.message}`);
    process.exit(2);
  }
  const report = await validator.validateBytes(bytes, { maxIssues: 100 });
  const issues = report.issues;
  const info = report.info || {};
  console.log(`${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ` +
    `${issues.numInfos} infos, ${issues.numHints} hints; ${info.nodeCount ?? '?'} nodes, ` +
    `${info.animationCount ?? '?'} animations, ${info.totalVertexCount ?? '?'} vertices`);
  for (const m of issues.messages) {
    if (m.severity <= 1) console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
  }
  if (issues.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
