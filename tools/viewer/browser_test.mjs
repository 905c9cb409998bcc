// Opens a run's report.html in headless Chromium (Debian's chromium, driven over the DevTools
// protocol by npm puppeteer-core from tools/viewer/node_modules) and checks what a person would
// see:
//   - no console errors and no uncaught exceptions;
//   - the 3D canvas is not blank: the pixel variance of its screenshot;
//   - the page loaded as many frames as trajectory.jsonl has lines;
//   - every plot has one point per frame;
//   - after scrubbing to the last frame, the drawn position of a named body (read back from the
//     page's instance matrices) is where summary.json says the body ends.
// usage: node browser_test.mjs RESULTS_DIR [--body NAME] [--screenshot FILE.png]
//        [--page-screenshot FILE.png]
// Exit 0 when every check passes, 1 when one fails, 77 when Chromium or puppeteer-core is
// missing (ctest counts that as skipped).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const SKIP = 77;
const args = process.argv.slice(2);
function option(name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
const dir = args[0];
if (!dir || dir.startsWith('--')) {
  console.error('usage: node browser_test.mjs RESULTS_DIR [--body NAME] [--screenshot FILE.png]');
  process.exit(2);
}

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) {
  console.log('SKIPPED: no Chromium (/usr/bin/chromium); tools/setup.sh installs Debian chromium');
  process.exit(SKIP);
}
let puppeteer;
try {
  puppeteer = createRequire(import.meta.url)('puppeteer-core');
} catch {
  console.log('SKIPPED: puppeteer-core is not installed in tools/viewer/node_modules; run tools/setup.sh');
  process.exit(SKIP);
}

const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

const summary = JSON.parse(readFileSync(resolve(dir, 'summary.json'), 'utf8'));
const trajectoryFrames = readFileSync(resolve(dir, 'trajectory.jsonl'), 'utf8')
  .split('\n').filter((line) => line.trim() !== '').length;
const body = option('--body') || Object.keys(summary.bodies)[0];

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  // Root in CI needs --no-sandbox; WebGL without a GPU runs on SwiftShader.
  args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
    '--window-size=1400,900'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const consoleErrors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  page.on('requestfailed', (request) => consoleErrors.push(`failed to load ${request.url()}`));

  const url = pathToFileURL(resolve(dir, 'report.html')).href;
  await page.goto(url, { waitUntil: 'load', timeout: 20000 });
  await page.waitForFunction('window.impetusReady === true', { timeout: 20000 });

  const frameCount = await page.evaluate(() => window.impetusViewer.frameCount);
  check(frameCount === trajectoryFrames,
    `frames loaded ${frameCount} == trajectory.jsonl frames ${trajectoryFrames}`);

  const counts = await page.evaluate(() => window.impetusViewer.plotPointCounts());
  const plots = Object.keys(counts);
  check(plots.length === 6, `6 plots (${plots.join(', ')})`);
  for (const id of plots) {
    const lengths = counts[id];
    check(lengths.length > 0 && lengths.every((n) => n === trajectoryFrames),
      `plot ${id}: ${lengths.join('/')} points per line, ${trajectoryFrames} frames`);
  }

  // Scrub to the last frame with the timeline, as a person would.
  await page.evaluate((last) => {
    const timeline = document.getElementById('timeline');
    timeline.value = String(last);
    timeline.dispatchEvent(new Event('input'));
  }, trajectoryFrames - 1);
  const shown = await page.evaluate(() => window.impetusViewer.currentFrame());
  check(shown === trajectoryFrames - 1, `timeline at the last frame (${shown})`);
  const drawn = await page.evaluate((name) => window.impetusViewer.bodyPosition(name), body);
  const expected = summary.bodies[body].position;
  const error = drawn ? Math.max(...drawn.map((x, k) => Math.abs(x - expected[k]))) : Infinity;
  check(error < 1e-4, `'${body}' drawn at [${drawn}] vs summary.json [${expected}] (error ${error})`);
  // Click the body where it is drawn (a real mouse click on the canvas).
  const [x, y] = await page.evaluate((name) => window.impetusViewer.screenPosition(name), body);
  await page.mouse.click(x, y);
  const info = await page.evaluate(() => window.impetusViewer.pickedText());
  check(info.startsWith(body + ' '), `clicking '${body}' at (${x.toFixed(0)}, ${y.toFixed(0)}) shows its state: ` +
    `'${info.split('\n')[0]}'`);

  // Let the renderer draw the frame, then judge the screenshot of the 3D canvas.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const canvas = await page.$('#view3d');
  const png = await canvas.screenshot({ type: 'png' });
  const screenshot = option('--screenshot');
  if (screenshot) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(screenshot, png);
  }
  // Decode the PNG in the page (an independent path from the WebGL buffer) and measure it.
  const stats = await page.evaluate(async (base64) => {
    const image = new Image();
    image.src = 'data:image/png;base64,' + base64;
    await image.decode();
    const c = document.createElement('canvas');
    c.width = image.width;
    c.height = image.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(image, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    let sum = 0;
    let sumSq = 0;
    const colours = new Set();
    const n = data.length / 4;
    for (let i = 0; i < data.length; i += 4) {
      const y = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
      sum += y;
      sumSq += y * y;
      if (colours.size < 1000) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    }
    const mean = sum / n;
    return { width: c.width, height: c.height, variance: sumSq / n - mean * mean, colours: colours.size };
  }, png.toString('base64'));
  check(stats.width > 100 && stats.variance > 25 && stats.colours > 20,
    `3D canvas ${stats.width}x${stats.height} not blank (luminance variance ${stats.variance.toFixed(1)}, ` +
    `${stats.colours} colours)`);

  const pageShot = option('--page-screenshot');
  if (pageShot) {
    await page.evaluate(() => window.impetusViewer.pick(''));
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: pageShot, type: 'png' });
  }
  // Following a body puts the orbit centre on it, and keeps it there while scrubbing.
  await page.evaluate((name) => window.impetusViewer.follow(name), body);
  await page.evaluate(() => window.impetusViewer.seekFrame(0));
  const target = await page.evaluate(() => window.impetusViewer.cameraTarget());
  const start = await page.evaluate((name) => window.impetusViewer.bodyPosition(name), body);
  const followError = Math.max(...target.map((t, k) => Math.abs(t - start[k])));
  check(followError < 1e-6, `following '${body}' keeps the camera on it (error ${followError})`);
  check(consoleErrors.length === 0, `no console errors${consoleErrors.length ? ': ' + consoleErrors.join(' | ') : ''}`);
} finally {
  await browser.close();
}
if (failures.length > 0) {
  console.log(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log('all checks passed');
