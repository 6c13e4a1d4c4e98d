// "How much have I improved at Spa this month, and where did the time come from?"
const p = await brakinglab.getProgress({ trackName: "Spa" });
const first = p.sessions[0];
const last = p.sessions[p.sessions.length - 1];
const bestLap = async (sessionId: string) => {
  const laps = await brakinglab.getLaps({ sessionId, validOnly: true });
  return laps.reduce((a, b) => (a.lapTimeMs < b.lapTimeMs ? a : b)).lapNumber;
};
const cmp = await brakinglab.compareLaps({
  a: { sessionId: first.sessionId, lapNumber: await bestLap(first.sessionId) },
  b: { sessionId: last.sessionId, lapNumber: await bestLap(last.sessionId) },
});
return {
  trend: p.trend,
  improvementMs: p.improvementMs,
  gains: cmp.corners.filter((c) => c.deltaMs < -50).map((c) => `${c.cornerName}: ${c.deltaMs} ms`),
};
