// The report page of impetus (report.html): plays a run back in 3D and plots its figures
// against time. Data: window.IMPETUS_REPORT from report_files/data.js, written by
// tools/viewer/report_writer.cpp = { summary: summary.json, shapes: shapes.json,
// frames: [trajectory.jsonl records], cloths: [{ name, frames: [base64 float32 xyz | null] }] }.
// Libraries: three.js r111 (global THREE, with THREE.OrbitControls) and Chart.js 3 (Chart).
// The world is z-up, as in the scene files. When everything is drawn the page sets
// window.impetusReady = true; window.impetusViewer lets tests drive and read the page.
(function () {
  'use strict';

  const report = window.IMPETUS_REPORT;
  if (!report || !window.THREE || !window.Chart) {
    showLoadError('report_files/ is incomplete: data.js, three.min.js or chart.min.js did not load.');
    return;
  }
  const summary = report.summary || {};
  const shapes = report.shapes || { surfaces: [], bodies: [], joints: [], cloths: [] };
  const frames = report.frames || [];
  const frameCount = frames.length;

  function showLoadError(text) {
    const p = document.getElementById('load-error');
    p.textContent = text;
    p.hidden = false;
  }

  // ---- header ----------------------------------------------------------------------------

  function formatNumber(x, digits) {
    if (typeof x !== 'number' || !isFinite(x)) return 'n/a';
    return x.toFixed(digits);
  }

  function fillHeader() {
    document.title = 'impetus: ' + (summary.scene || shapes.scene || 'run');
    document.getElementById('scene-name').textContent = summary.scene || shapes.scene || 'run';
    const status = document.getElementById('status');
    const ok = summary.status === 'ok';
    status.textContent = summary.status || 'unknown';
    status.className = 'status ' + (ok ? 'ok' : 'diverged');
    if (!ok) {
      const message = document.getElementById('status-message');
      message.textContent = summary.divergence || 'the simulation diverged';
      message.hidden = false;
    }
    const stats = summary.stats || {};
    const engine = summary.engine || {};
    const settings = shapes.settings || {};
    const items = [
      ['steps', String(summary.steps)],
      ['simulated', formatNumber(summary.time, 3) + ' s'],
      ['solver', settings.solver || 'n/a'],
      ['threads', String(engine.threads)],
      ['wall', formatNumber(stats.wall_seconds, 2) + ' s'],
      ['ms/step', formatNumber(stats.ms_per_step, 3)],
      ['bodies', String(Object.keys(summary.bodies || {}).length) + ' moving'],
      ['contacts max', String(stats.contacts_max)],
      ['max penetration', formatNumber(1000 * stats.max_penetration, 3) + ' mm'],
      ['joint error max', formatNumber(1000 * stats.joint_error_max, 3) + ' mm'],
      ['energy', formatNumber(stats.energy_start, 1) + ' \u2192 ' + formatNumber(stats.energy_end, 1) + ' J'],
      ['asleep at end', String(stats.bodies_asleep)],
    ];
    if (stats.cloth_self_intersections_max !== undefined) {
      items.push(['cloth self-intersections max', String(stats.cloth_self_intersections_max)]);
    }
    const list = document.getElementById('headline');
    for (const [name, value] of items) {
      const div = document.createElement('div');
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dt.textContent = name;
      dd.textContent = value;
      div.append(dt, dd);
      list.append(div);
    }
  }

  // ---- body poses per frame --------------------------------------------------------------

  const movingBodies = shapes.bodies.filter((b) => b.motion !== 'static');
  const movingIndex = new Map(movingBodies.map((b, i) => [b.name, i]));
  const bodyByName = new Map(shapes.bodies.map((b) => [b.name, b]));
  // poses[f][7 i .. 7 i + 6] = x, y, z, qx, qy, qz, qw of moving body i at frame f. A body
  // missing from a frame (or with non-finite numbers) keeps its previous pose.
  const poses = [];
  (function buildPoses() {
    let previous = new Float64Array(7 * movingBodies.length);
    movingBodies.forEach((b, i) => {
      previous.set([b.position[0], b.position[1], b.position[2],
        b.orientation[1], b.orientation[2], b.orientation[3], b.orientation[0]], 7 * i);
    });
    for (const frame of frames) {
      const pose = new Float64Array(previous);
      const bodies = frame.bodies || {};
      movingBodies.forEach((b, i) => {
        const s = bodies[b.name];
        if (!s || !Array.isArray(s.position) || !Array.isArray(s.orientation)) return;
        const p = s.position;
        const q = s.orientation;
        const values = [p[0], p[1], p[2], q[1], q[2], q[3], q[0]];
        if (values.every((v) => typeof v === 'number' && isFinite(v))) pose.set(values, 7 * i);
      });
      poses.push(pose);
      previous = pose;
    }
  })();

  // World pose of any body at frame f: { position: Vector3, quaternion: Quaternion }.
  function bodyPose(name, f) {
    const position = new THREE.Vector3();
    const quaternion = new THREE.Quaternion();
    const i = movingIndex.get(name);
    if (i !== undefined && frameCount > 0) {
      const p = poses[f];
      position.set(p[7 * i], p[7 * i + 1], p[7 * i + 2]);
      quaternion.set(p[7 * i + 3], p[7 * i + 4], p[7 * i + 5], p[7 * i + 6]);
    } else if (bodyByName.has(name)) {
      const b = bodyByName.get(name);
      position.fromArray(b.position);
      quaternion.set(b.orientation[1], b.orientation[2], b.orientation[3], b.orientation[0]);
    }
    return { position, quaternion };
  }

  // ---- 3D scene --------------------------------------------------------------------------

  const canvas = document.getElementById('view3d');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xdfe6ee);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 2000);
  camera.up.set(0, 0, 1);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 0.75));
  const sun = new THREE.DirectionalLight(0xffffff, 0.65);
  sun.position.set(3, -4, 8);
  scene.add(sun);

  function surfaceGeometry(surface) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(surface.vertices, 3));
    geometry.setIndex(surface.triangles);
    if (surface.smooth) {
      geometry.computeVertexNormals();
      return geometry;
    }
    // Faceted shapes: one normal per face, so edges stay sharp.
    const flat = geometry.toNonIndexed();
    flat.computeVertexNormals();
    return flat;
  }

  const geometries = shapes.surfaces.map(surfaceGeometry);
  // Radius of each surface about its body origin, for picking.
  const surfaceRadius = shapes.surfaces.map((s) => {
    let r = 0;
    for (let k = 0; k + 2 < s.vertices.length; k += 3) {
      r = Math.max(r, Math.hypot(s.vertices[k], s.vertices[k + 1], s.vertices[k + 2]));
    }
    return r;
  });

  const materials = new Map();
  function material(colour, doubleSided) {
    const key = colour + (doubleSided ? '/2' : '/1');
    if (!materials.has(key)) {
      materials.set(key, new THREE.MeshStandardMaterial({
        color: new THREE.Color(colour), roughness: 0.75, metalness: 0.0,
        side: doubleSided ? THREE.DoubleSide : THREE.FrontSide,
      }));
    }
    return materials.get(key);
  }

  // Static bodies: one mesh each, placed once.
  const bounds = new THREE.Box3();
  for (const b of shapes.bodies) {
    if (b.motion !== 'static') continue;
    const mesh = new THREE.Mesh(geometries[b.surface], material(b.color, b.shape === 'plane'));
    const pose = bodyPose(b.name, 0);
    mesh.position.copy(pose.position);
    mesh.quaternion.copy(pose.quaternion);
    scene.add(mesh);
    if (b.shape === 'plane') addPlaneGrid(shapes.surfaces[b.surface], pose);
    if (b.shape !== 'plane' && b.shape !== 'mesh') bounds.expandByObject(mesh);
  }

  // Grid lines 0.5 m apart on a plane's tile (its first triangle gives centre and normal), so
  // the eye can judge distances and motion.
  function addPlaneGrid(surface, pose) {
    const v = surface.vertices;
    const corner = (k) => new THREE.Vector3(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
    const a = corner(0);
    const b = corner(1);
    const c = corner(2);
    const normal = new THREE.Vector3().subVectors(b, a).cross(new THREE.Vector3().subVectors(c, a)).normalize();
    const size = a.distanceTo(b);
    const grid = new THREE.GridHelper(size, Math.round(size / 0.5), 0x4a525a, 0x4a525a);
    grid.material.transparent = true;
    grid.material.opacity = 0.35;
    grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), normal);
    grid.position.copy(a).add(c).multiplyScalar(0.5).addScaledVector(normal, 1e-3);
    grid.applyMatrix(new THREE.Matrix4().compose(pose.position, pose.quaternion, new THREE.Vector3(1, 1, 1)));
    scene.add(grid);
  }

  // Moving bodies: one InstancedMesh per (surface, colour), so a 1,000-body pile is a handful
  // of draw calls. slot[i] = [group, instance] of moving body i.
  const groups = [];
  const slot = [];
  (function buildGroups() {
    const byKey = new Map();
    movingBodies.forEach((b, i) => {
      const key = b.surface + '|' + b.color;
      if (!byKey.has(key)) byKey.set(key, { surface: b.surface, color: b.color, members: [] });
      const g = byKey.get(key);
      slot[i] = [g, g.members.length];
      g.members.push(i);
    });
    for (const g of byKey.values()) {
      g.mesh = new THREE.InstancedMesh(geometries[g.surface], material(g.color, false), g.members.length);
      g.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      g.mesh.frustumCulled = false;
      scene.add(g.mesh);
      groups.push(g);
    }
  })();

  // Cloths: decoded once; frames without an OBJ keep the previous shape.
  function decodeFloats(text) {
    const bytes = atob(text);
    const buffer = new ArrayBuffer(bytes.length);
    const view = new Uint8Array(buffer);
    for (let i = 0; i < bytes.length; ++i) view[i] = bytes.charCodeAt(i);
    return new Float32Array(buffer);
  }
  const cloths = shapes.cloths.map((c, ci) => {
    const data = (report.cloths || [])[ci] || { frames: [] };
    const positions = [];
    let last = new Float32Array(c.vertices);
    for (let f = 0; f < frameCount; ++f) {
      const text = data.frames[f];
      if (typeof text === 'string') last = decodeFloats(text);
      positions.push(last);
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(c.vertices), 3));
    geometry.setIndex(c.triangles);
    geometry.computeVertexNormals();
    const mesh = new THREE.Mesh(geometry, material(c.color || '#d64f7a', true));
    mesh.frustumCulled = false;
    scene.add(mesh);
    return { name: c.name, positions, geometry, mesh };
  });

  // Joints: small markers at body A's anchor.
  const markerRadius = 0.025;
  const jointMarkers = new THREE.InstancedMesh(new THREE.SphereBufferGeometry(markerRadius, 12, 8),
    new THREE.MeshStandardMaterial({ color: 0x222222, roughness: 0.4 }), Math.max(1, shapes.joints.length));
  jointMarkers.count = shapes.joints.length;
  jointMarkers.frustumCulled = false;
  scene.add(jointMarkers);

  const controls = new THREE.OrbitControls(camera, canvas);
  controls.screenSpacePanning = true;
  controls.enableDamping = false;

  function frameCamera() {
    const box = bounds.clone();
    if (frameCount > 0) {
      movingBodies.forEach((b, i) => {
        const p = poses[0];
        const r = surfaceRadius[b.surface];
        box.expandByPoint(new THREE.Vector3(p[7 * i] - r, p[7 * i + 1] - r, p[7 * i + 2] - r));
        box.expandByPoint(new THREE.Vector3(p[7 * i] + r, p[7 * i + 1] + r, p[7 * i + 2] + r));
      });
    }
    for (const c of cloths) {
      const v = c.positions.length ? c.positions[0] : [];
      for (let k = 0; k + 2 < v.length; k += 3) box.expandByPoint(new THREE.Vector3(v[k], v[k + 1], v[k + 2]));
    }
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, 0), new THREE.Vector3(1, 1, 1));
    const center = box.getCenter(new THREE.Vector3());
    const size = box.getSize(new THREE.Vector3()).length();
    controls.target.copy(center);
    camera.position.set(center.x + 0.5 * size, center.y - 0.85 * size, center.z + 0.55 * size);
    camera.near = Math.max(0.001, size / 1000);
    camera.far = size * 100 + 100;
    camera.updateProjectionMatrix();
    controls.update();
  }

  // ---- showing a frame -------------------------------------------------------------------

  let current = 0;
  let followed = '';
  const matrix = new THREE.Matrix4();
  const unitScale = new THREE.Vector3(1, 1, 1);

  function showFrame(f) {
    if (frameCount === 0) return;
    f = Math.max(0, Math.min(frameCount - 1, Math.round(f)));
    const before = followed ? bodyPose(followed, current).position : null;
    current = f;
    const p = poses[f];
    const position = new THREE.Vector3();
    const quaternion = new THREE.Quaternion();
    movingBodies.forEach((b, i) => {
      position.set(p[7 * i], p[7 * i + 1], p[7 * i + 2]);
      quaternion.set(p[7 * i + 3], p[7 * i + 4], p[7 * i + 5], p[7 * i + 6]);
      matrix.compose(position, quaternion, unitScale);
      slot[i][0].mesh.setMatrixAt(slot[i][1], matrix);
    });
    for (const g of groups) g.mesh.instanceMatrix.needsUpdate = true;
    for (const c of cloths) {
      c.geometry.attributes.position.array.set(c.positions[f]);
      c.geometry.attributes.position.needsUpdate = true;
      c.geometry.computeVertexNormals();
      c.geometry.computeBoundingSphere();
    }
    shapes.joints.forEach((j, k) => {
      const pose = bodyPose(j.body_a, f);
      const anchor = new THREE.Vector3().fromArray(j.anchor_a).applyQuaternion(pose.quaternion).add(pose.position);
      matrix.compose(anchor, new THREE.Quaternion(), unitScale);
      jointMarkers.setMatrixAt(k, matrix);
    });
    jointMarkers.instanceMatrix.needsUpdate = true;
    if (followed && before) {
      // The camera keeps its offset from the followed body.
      const delta = bodyPose(followed, f).position.sub(before);
      camera.position.add(delta);
      controls.target.add(delta);
      controls.update();
    }
    document.getElementById('timeline').value = String(f);
    const frame = frames[f];
    document.getElementById('frame-label').textContent =
      'frame ' + (f + 1) + '/' + frameCount + ' \u00b7 step ' + frame.step + ' \u00b7 t = ' + formatNumber(frame.time, 3) + ' s';
    updateBodyInfo();
    for (const chart of charts) chart.draw();
    dirty = true;
  }

  // ---- picking ---------------------------------------------------------------------------

  let picked = '';
  function pick(clientX, clientY) {
    const rect = canvas.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, camera);
    // Nearest hit of the ray with each moving body's bounding sphere, then the exact
    // triangles of the body's surface among those spheres (nearest triangle hit wins).
    let best = '';
    let bestT = Infinity;
    const p = poses[current];
    movingBodies.forEach((b, i) => {
      const center = new THREE.Vector3(p[7 * i], p[7 * i + 1], p[7 * i + 2]);
      const sphere = new THREE.Sphere(center, surfaceRadius[b.surface]);
      if (!ray.ray.intersectsSphere(sphere)) return;
      const q = new THREE.Quaternion(p[7 * i + 3], p[7 * i + 4], p[7 * i + 5], p[7 * i + 6]);
      const inverse = new THREE.Matrix4().compose(center, q, unitScale);
      inverse.getInverse(inverse.clone());
      const local = ray.ray.clone().applyMatrix4(inverse);
      const s = shapes.surfaces[b.surface];
      const v = s.vertices;
      const a = new THREE.Vector3(), bb = new THREE.Vector3(), c = new THREE.Vector3(), hit = new THREE.Vector3();
      for (let k = 0; k + 2 < s.triangles.length; k += 3) {
        a.fromArray(v, 3 * s.triangles[k]);
        bb.fromArray(v, 3 * s.triangles[k + 1]);
        c.fromArray(v, 3 * s.triangles[k + 2]);
        if (local.intersectTriangle(a, bb, c, false, hit)) {
          const t = hit.distanceTo(local.origin);
          if (t < bestT) {
            bestT = t;
            best = b.name;
          }
        }
      }
    });
    picked = best;
    updateBodyInfo();
  }

  function vectorText(v) {
    return '[' + Array.from(v, (x) => formatNumber(x, 4)).join(', ') + ']';
  }

  function updateBodyInfo() {
    const box = document.getElementById('body-info');
    if (!picked) {
      box.hidden = true;
      return;
    }
    const b = bodyByName.get(picked);
    const s = ((frames[current] || {}).bodies || {})[picked] || {};
    box.textContent = [
      picked + '  (' + b.shape + ', ' + b.motion + ')',
      'position          ' + vectorText(s.position || []),
      'orientation wxyz  ' + vectorText(s.orientation || []),
      'linear velocity   ' + vectorText(s.linear_velocity || []),
      'angular velocity  ' + vectorText(s.angular_velocity || []),
    ].join('\n');
    box.hidden = false;
  }

  // ---- plots -----------------------------------------------------------------------------

  const charts = [];
  const times = frames.map((f) => f.time);
  function series(get) {
    return frames.map((f, i) => {
      const y = get(f);
      return { x: times[i], y: typeof y === 'number' && isFinite(y) ? y : null };
    });
  }
  const palette = ['#2e86c1', '#e4572e', '#76b041', '#8e6fc4', '#c89f65', '#17a589', '#d64f7a', '#7f8c8d'];
  const phaseNames = (function () {
    const names = [];
    for (const f of frames) {
      for (const name of Object.keys(f.ms_per_step_by_phase || {})) {
        if (!names.includes(name)) names.push(name);
      }
    }
    return names;
  })();
  const plots = [
    { id: 'energy', title: 'total energy [J]', lines: [['energy', (f) => f.energy]] },
    { id: 'contacts', title: 'contacts', lines: [['contacts', (f) => f.contacts]] },
    { id: 'penetration', title: 'max penetration [mm]', lines: [['max penetration', (f) => 1000 * f.max_penetration]] },
    { id: 'joint_error', title: 'joint error [mm]', lines: [['joint error', (f) => 1000 * f.joint_error]] },
    { id: 'phases', title: 'ms per step by phase', lines: phaseNames.map((n) => [n, (f) => (f.ms_per_step_by_phase || {})[n]]) },
    { id: 'asleep', title: 'bodies asleep', lines: [['asleep', (f) => f.bodies_asleep]] },
  ];

  // Draws the current frame's time as a vertical line on every plot.
  const cursorPlugin = {
    id: 'impetusCursor',
    afterDatasetsDraw(chart) {
      if (frameCount === 0) return;
      const x = chart.scales.x.getPixelForValue(times[current]);
      const area = chart.chartArea;
      const ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = 'rgba(192, 57, 43, 0.8)';
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, area.top);
      ctx.lineTo(x, area.bottom);
      ctx.stroke();
      ctx.restore();
    },
  };

  function buildPlots() {
    const container = document.getElementById('plots');
    for (const plot of plots) {
      const div = document.createElement('div');
      div.className = 'plot';
      const plotCanvas = document.createElement('canvas');
      plotCanvas.id = 'plot-' + plot.id;
      div.append(plotCanvas);
      container.append(div);
      const datasets = plot.lines.map(([label, get], k) => ({
        label, data: series(get), borderColor: palette[k % palette.length],
        backgroundColor: palette[k % palette.length], borderWidth: 1.5, pointRadius: 0, spanGaps: false,
      }));
      const chart = new Chart(plotCanvas, {
        type: 'line',
        data: { datasets },
        plugins: [cursorPlugin],
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          parsing: false,
          normalized: true,
          interaction: { mode: 'nearest', axis: 'x', intersect: false },
          plugins: {
            title: { display: true, text: plot.title },
            legend: { display: plot.lines.length > 1, labels: { boxWidth: 10, font: { size: 10 } } },
          },
          scales: {
            x: { type: 'linear', title: { display: true, text: 'time [s]' } },
            y: { beginAtZero: plot.id !== 'energy' },
          },
          onClick(event, elements, c) {
            const t = c.scales.x.getValueForPixel(event.x);
            seekTime(t);
          },
        },
      });
      chart.impetusId = plot.id;
      charts.push(chart);
    }
  }

  // ---- playback --------------------------------------------------------------------------

  let playing = false;
  let playTime = 0;       // simulated seconds being shown
  let lastWall = 0;
  let dirty = true;

  function frameAtTime(t) {
    // Largest frame whose time is <= t (binary search; times increase).
    let lo = 0;
    let hi = frameCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (times[mid] <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function seekTime(t) {
    if (frameCount === 0) return;
    playTime = Math.max(times[0], Math.min(times[frameCount - 1], t));
    showFrame(frameAtTime(playTime));
  }

  function seekFrame(f) {
    if (frameCount === 0) return;
    f = Math.max(0, Math.min(frameCount - 1, Math.round(f)));
    playTime = times[f];
    showFrame(f);
  }

  function setPlaying(on) {
    playing = on && frameCount > 1;
    if (playing && current === frameCount - 1) seekFrame(0);
    document.getElementById('play').innerHTML = playing ? '&#10074;&#10074;' : '&#9654;';
    lastWall = performance.now();
  }

  function resize() {
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (canvas.width !== Math.floor(width * renderer.getPixelRatio()) ||
        canvas.height !== Math.floor(height * renderer.getPixelRatio())) {
      renderer.setSize(width, height, false);
      camera.aspect = width / Math.max(1, height);
      camera.updateProjectionMatrix();
      dirty = true;
    }
  }

  function tick(now) {
    if (playing) {
      const speed = Number(document.getElementById('speed').value);
      playTime += ((now - lastWall) / 1000) * speed;
      lastWall = now;
      if (playTime >= times[frameCount - 1]) {
        playTime = times[frameCount - 1];
        setPlaying(false);
      }
      const f = frameAtTime(playTime);
      if (f !== current) showFrame(f);
    }
    resize();
    if (dirty) {
      renderer.render(scene, camera);
      dirty = false;
    }
    requestAnimationFrame(tick);
  }

  function wireControls() {
    const timeline = document.getElementById('timeline');
    timeline.max = String(Math.max(0, frameCount - 1));
    timeline.addEventListener('input', () => seekFrame(Number(timeline.value)));
    document.getElementById('play').addEventListener('click', () => setPlaying(!playing));
    document.addEventListener('keydown', (e) => {
      if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
      if (e.code === 'Space') {
        setPlaying(!playing);
        e.preventDefault();
      }
    });
    const follow = document.getElementById('follow');
    for (const b of movingBodies) {
      const option = document.createElement('option');
      option.value = b.name;
      option.textContent = b.name;
      follow.append(option);
    }
    follow.addEventListener('change', () => {
      followed = follow.value;
      if (followed) {
        const p = bodyPose(followed, current).position;
        camera.position.add(p.clone().sub(controls.target));
        controls.target.copy(p);
        controls.update();
      }
      dirty = true;
    });
    controls.addEventListener('change', () => { dirty = true; });
    // A click (not a drag) picks the body under the pointer.
    let down = null;
    canvas.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
    canvas.addEventListener('pointerup', (e) => {
      if (down && Math.hypot(e.clientX - down[0], e.clientY - down[1]) < 4) pick(e.clientX, e.clientY);
      down = null;
    });
    window.addEventListener('resize', () => { dirty = true; });
  }

  // ---- start -----------------------------------------------------------------------------

  fillHeader();
  buildPlots();
  wireControls();
  frameCamera();
  resize();
  seekFrame(0);
  renderer.render(scene, camera);
  dirty = false;
  requestAnimationFrame(tick);

  // For tests and the curious: read the page's state back.
  window.impetusViewer = {
    frameCount,
    currentFrame: () => current,
    seekFrame: (f) => {
      seekFrame(f);
      renderer.render(scene, camera);
      dirty = false;
      return current;
    },
    // Position of a body as drawn now: read back from its instance matrix.
    bodyPosition(name) {
      const i = movingIndex.get(name);
      if (i === undefined) return null;
      const m = new THREE.Matrix4();
      slot[i][0].mesh.getMatrixAt(slot[i][1], m);
      return new THREE.Vector3().setFromMatrixPosition(m).toArray();
    },
    plotPointCounts() {
      const counts = {};
      for (const c of charts) counts[c.impetusId] = c.data.datasets.map((d) => d.data.length);
      return counts;
    },
    // Where a body's origin appears on the page (CSS pixels), for clicking it.
    screenPosition(name) {
      const p = this.bodyPosition(name);
      if (!p) return null;
      const ndc = new THREE.Vector3().fromArray(p).project(camera);
      const rect = canvas.getBoundingClientRect();
      return [rect.left + ((ndc.x + 1) / 2) * rect.width, rect.top + ((1 - ndc.y) / 2) * rect.height];
    },
    cameraTarget: () => controls.target.toArray(),
    pickedText: () => (document.getElementById('body-info').hidden ? '' : document.getElementById('body-info').textContent),
    pick(name) {
      picked = movingIndex.has(name) ? name : '';
      updateBodyInfo();
      return document.getElementById('body-info').textContent;
    },
    follow(name) {
      const follow = document.getElementById('follow');
      follow.value = name;
      follow.dispatchEvent(new Event('change'));
    },
  };
  window.impetusReady = true;
})();
