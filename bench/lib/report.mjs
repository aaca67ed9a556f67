// The targets of bench/cases/http.mjs (issue 23, item 8; the members p99 target as issue 31 item 11
// restated it, relative to the peer's), judged on one database's figures, and the lines the terminal
// shows for them.
import { round2 } from './servers.mjs';

export const TARGETS = {
  authMeVsGetSessionAtLeast: 2,
  membersVsListMembersAtLeast: 2,
  membersP99VsPeerAtMost: 0.5,
  healthzVsBareAtLeast: 0.95,
  peakRssVsPeerAtMost: 1,
  coldStartVsPeerAtMost: 1,
  authMeCpuAboveBarePrismaReadUsAtMost: 60,
  /** Issue 32: /me with an API key costs at most 1.2x the server CPU of /me with an access token… */
  authMeApiKeyCpuVsTokenAtMost: 1.2,
  /** …and serves at least 2x the requests of Better Auth's api-key get-session. */
  authMeApiKeyVsPeerAtLeast: 2,
  authMeEdDSACpuVsHs256AtMost: 1.3,
  authMeEdDSAVsGetSessionAtLeast: 2,
};

function check(figure, value, comparison, target, detail = {}) {
  const pass = comparison === '≥' ? value >= target : value <= target;
  return { figure, value, target: `${comparison} ${target}`, pass, ...detail };
}

/**
 * Every target for one database. `figures` are the per-endpoint medians, `runsOf` the rounds behind
 * them; req/s ratios are ratios of the medians, with the per-round ratios (their spread is the
 * noise) and the same ratio from server CPU per request (which other load disturbs less) beside them.
 */
export function judge({ figures, runsOf, memory, coldStartMs }) {
  const rps = (endpoint, name) => figures[endpoint][name].requestsPerSecond;
  const cpu = (endpoint, name) => figures[endpoint][name].serverCpuUsPerRequest;
  const perRound = (endpoint, a, b) => runsOf[`${endpoint}.${a}`].map((run, i) => round2(run.rps / runsOf[`${endpoint}.${b}`][i].rps));
  /** a's throughput ÷ b's on one endpoint, by req/s (the target) and by server CPU. */
  const ratio = (endpoint, a, b) => ({
    value: round2(rps(endpoint, a) / rps(endpoint, b)),
    perRound: perRound(endpoint, a, b),
    byServerCpu: round2(cpu(endpoint, b) / cpu(endpoint, a)),
  });
  const throughput = (figure, endpoint, a, b, target) => {
    const { value, ...detail } = ratio(endpoint, a, b);
    return check(figure, value, '≥', target, { ...detail, passByServerCpu: detail.byServerCpu >= target, of: `${rps(endpoint, a)} ÷ ${rps(endpoint, b)} req/s` });
  };
  const cpuRounds = (endpoint, name) => runsOf[`${endpoint}.${name}`].map((run) => run.serverCpuUsPerRequest);
  const meCpu = cpuRounds('authMe', 'gatekit');
  const readCpu = cpuRounds('authMe', 'barePrisma');
  const eddsaCpu = cpuRounds('authMe', 'gatekitEdDSA');
  const hs256MeCpu = cpuRounds('authMe', 'gatekitMe');
  return [
    throughput('/api/auth/me ÷ get-session', 'authMe', 'gatekit', 'peer', TARGETS.authMeVsGetSessionAtLeast),
    throughput('/me EdDSA ÷ get-session', 'authMe', 'gatekitEdDSA', 'peer', TARGETS.authMeEdDSAVsGetSessionAtLeast),
    // Two processes used alike (each loaded with /me only), one per algorithm.
    check('/me CPU, EdDSA ÷ HS256', round2(cpu('authMe', 'gatekitEdDSA') / cpu('authMe', 'gatekitMe')), '≤', TARGETS.authMeEdDSACpuVsHs256AtMost, {
      of: `${cpu('authMe', 'gatekitEdDSA')} ÷ ${cpu('authMe', 'gatekitMe')} µs per request`,
      perRound: eddsaCpu.map((us, i) => round2(us / hs256MeCpu[i])),
    }),
    throughput('members ÷ list-members', 'members', 'gatekit', 'peer', TARGETS.membersVsListMembersAtLeast),
    check('members p99 ÷ list-members p99', round2(figures.members.gatekit.p99Ms / figures.members.peer.p99Ms), '≤', TARGETS.membersP99VsPeerAtMost, {
      of: `${figures.members.gatekit.p99Ms} ÷ ${figures.members.peer.p99Ms} ms, 8 connections`,
      perRound: figures.members.gatekit.rounds.map((one, i) => round2(one.p99Ms / figures.members.peer.rounds[i].p99Ms)),
    }),
    throughput('/healthz ÷ bare Express 5 + helmet', 'healthz', 'gatekit', 'bare', TARGETS.healthzVsBareAtLeast),
    check('peak RSS ÷ peer', round2(memory.gatekit.peakMiB / memory.peer.peakMiB), '≤', TARGETS.peakRssVsPeerAtMost, { of: `${memory.gatekit.peakMiB} ÷ ${memory.peer.peakMiB} MiB` }),
    check('cold start ÷ peer', round2(coldStartMs.gatekit.medianMs / coldStartMs.peer.medianMs), '≤', TARGETS.coldStartVsPeerAtMost, { of: `${coldStartMs.gatekit.medianMs} ÷ ${coldStartMs.peer.medianMs} ms` }),
    check('/me with a key ÷ with a token, CPU', round2(cpu('authMeApiKey', 'gatekit') / cpu('authMe', 'gatekit')), '≤', TARGETS.authMeApiKeyCpuVsTokenAtMost, {
      of: `${cpu('authMeApiKey', 'gatekit')} ÷ ${cpu('authMe', 'gatekit')} µs per request`,
      perRound: runsOf['authMeApiKey.gatekit'].map((run, i) => round2(run.serverCpuUsPerRequest / runsOf['authMe.gatekit'][i].serverCpuUsPerRequest)),
    }),
    throughput('/me with a key ÷ peer api-key session', 'authMeApiKey', 'gatekit', 'peer', TARGETS.authMeApiKeyVsPeerAtLeast),
    check('/me CPU above bare Prisma read (µs)', cpu('authMe', 'gatekit') - cpu('authMe', 'barePrisma'), '≤', TARGETS.authMeCpuAboveBarePrismaReadUsAtMost, {
      perRound: meCpu.map((us, i) => Math.round(us - readCpu[i])),
      of: `${cpu('authMe', 'gatekit')} − ${cpu('authMe', 'barePrisma')} µs per request`,
    }),
  ];
}

/** Figures with no target: the ratios to the app's own /healthz (withdrawn) and the rest against the peer. */
export function information({ figures, memory, coldStartMs }) {
  const rps = (endpoint, name) => figures[endpoint][name].requestsPerSecond;
  const cpu = (endpoint, name) => figures[endpoint][name].serverCpuUsPerRequest;
  const both = (a, b) => ({ ratio: round2(rps(...a) / rps(...b)), byServerCpu: round2(cpu(...b) / cpu(...a)) });
  return {
    authMeVsOwnHealthz: { ...both(['authMe', 'gatekit'], ['healthz', 'gatekit']), of: 'withdrawn target (was ≥ 0.5)' },
    membersVsOwnHealthz: { ...both(['members', 'gatekit'], ['healthz', 'gatekit']), of: 'withdrawn target (was ≥ 0.25)' },
    healthzVsPeerOk: { ...both(['healthz', 'gatekit'], ['healthz', 'peer']), of: "/healthz ÷ the peer's GET /ok" },
    authMeVsBarePrismaRead: { ...both(['authMe', 'gatekit'], ['authMe', 'barePrisma']), of: '/me ÷ the bare route reading the user by id' },
    authMeOnlyMeProcessVsMain: { ...both(['authMe', 'gatekitMe'], ['authMe', 'gatekit']), of: 'HS256 /me on a process loaded with /me only ÷ on the one loaded with every endpoint' },
    authMeOnlyMeProcessVsGetSession: { ...both(['authMe', 'gatekitMe'], ['authMe', 'peer']), of: "HS256 /me on the /me-only process ÷ get-session (the EdDSA target's process, with HS256)" },
    guardQueryCpuAboveBareReadUs: { us: cpu('guardQuery', 'barePrisma') - cpu('authMe', 'barePrisma'), of: "the guard's query (the user with a live token) on the bare app, minus the bare read, µs of CPU" },
    findUniqueCpuAboveBareReadUs: { us: cpu('findUnique', 'barePrisma') - cpu('authMe', 'barePrisma'), of: 'findUnique by id on the bare app (batched by Prisma), minus findFirst by id, µs of CPU' },
    barePrismaPeakRssMiB: memory.barePrisma.peakMiB,
    bareColdStartMs: coldStartMs.bare.medianMs,
  };
}

const cell = (one) => (one ? `${one.requestsPerSecond.toLocaleString('en-US')} req/s (p50 ${one.p50Ms}, p99 ${one.p99Ms} ms; ${one.serverCpuUsPerRequest} µs CPU)` : '');
const row = (cells, widths) => cells.map((text, i) => String(text).padEnd(widths[i])).join('  ').trimEnd();

/** One database's table, targets and information, as terminal lines. */
export function formatDatabase(result) {
  const e = result.endpoints;
  const widths = [36, 50, 50, 50];
  const memoryCell = (name) => `${result.peakRssMiB[name]} MiB (${result.rssAfterStartMiB[name]} MiB)`;
  const servers = ['gatekit', 'peer', 'bare'];
  const lines = [
    `http on ${result.database}: ${result.compared.database}`,
    `  load average ${result.compared.machine.loadAverageAtStart.join(' ')} at start, ${result.compared.machine.loadAverageAtEnd.join(' ')} at end (${result.compared.machine.cpus} cores)`,
    '',
    `  ${row(['figure', 'gatekit', 'better auth peer', 'bare express (+ helmet | prisma read)'], widths)}`,
    `  ${row(['/healthz  (peer: /ok)', cell(e.healthz.gatekit), cell(e.healthz.peer), cell(e.healthz.bare)], widths)}`,
    `  ${row(['/api/auth/me (get-session | by id)', cell(e.authMe.gatekit), cell(e.authMe.peer), cell(e.authMe.barePrisma)], widths)}`,
    `  ${row(['/api/auth/me with an API key', cell(e.authMeApiKey.gatekit), cell(e.authMeApiKey.peer), ''], widths)}`,
    `  ${row(['/api/auth/me, HS256, /me-only process', cell(e.authMe.gatekitMe), '', ''], widths)}`,
    `  ${row(['/api/auth/me, EdDSA, /me-only process', cell(e.authMe.gatekitEdDSA), '', ''], widths)}`,
    `  ${row(["the guard's query, bare", '', '', cell(e.guardQuery.barePrisma)], widths)}`,
    `  ${row(['findUnique by id, bare', '', '', cell(e.findUnique.barePrisma)], widths)}`,
    `  ${row(['members, limit 50, 10k org', cell(e.members.gatekit), cell(e.members.peer), ''], widths)}`,
    `  ${row(['organizations (200 orgs)', cell(e.organizations.gatekit), '', ''], widths)}`,
    `  ${row(['members, middle page', cell(e.membersMiddlePage.gatekit), '', ''], widths)}`,
    `  ${row(['POST /api/auth/refresh (rotation)', cell(e.refresh.gatekit), '', ''], widths)}`,
    `  ${row(['POST /api/auth/login (bcrypt cost 12)', cell(e.signIn.gatekit), '', ''], widths)}`,
    `  ${row(['peak RSS (RSS after start)', ...servers.map(memoryCell)], widths)}`,
    `  ${row(['cold start to first 200 (median)', `${result.coldStartMs.gatekit.medianMs} ms`, `${result.coldStartMs.peer.medianMs} ms`, `${result.coldStartMs.bare.medianMs} ms (+ helmet)`], widths)}`,
    '',
    `  targets on ${result.database}`,
    ...result.targets.map((one) =>
      `    ${one.pass ? 'PASS' : 'FAIL'}  ${one.figure.padEnd(38)} ${String(one.value).padEnd(7)} target ${one.target.padEnd(7)}  ${one.of ?? ''}${one.byServerCpu !== undefined ? `; by server CPU ${one.byServerCpu}${one.passByServerCpu ? ' (pass)' : ' (fail)'}` : ''}${one.perRound ? `; rounds ${one.perRound.join(', ')}` : ''}`.trimEnd(),
    ),
    `          cold start runs (ms): gatekit ${result.coldStartMs.gatekit.runsMs.join(', ')}; peer ${result.coldStartMs.peer.runsMs.join(', ')}`,
    '  information (no target)',
    ...Object.entries(result.information).map(([name, one]) => `    ${name.padEnd(32)} ${typeof one === 'object' ? `${one.ratio ?? one.us}${one.byServerCpu !== undefined ? ` (by server CPU ${one.byServerCpu})` : ''}  ${one.of}` : one}`),
  ];
  return lines;
}
