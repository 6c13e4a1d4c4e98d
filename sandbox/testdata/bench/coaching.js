// Get recent sessions at Spa
const sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 5 });
// Find weakest corners
const weak = await brakinglab.getWeakCorners({ trackName: "Spa", limit: 5 });
// Get braking data for the latest session
const braking = await brakinglab.getBrakingZones({ sessionId: sessions[0].id });
console.log("Weakest corners:", weak);
console.log("Braking zones:", braking);
const report = await brakinglab.saveCoachingReport({
  sessionId: sessions[0].id,
  overview: { assessment: "needs_work", summary: "Three corners at Spa are costing significant time..." },
  pace: { bestLapMs: sessions[0].bestLapMs, averageLapMs: 138500, consistencyPct: 85, improvementTrend: "improving" },
  corners: weak.map((c) => ({ cornerIndex: c.cornerIndex, cornerName: c.cornerName, verdict: "needs_work", issue: c.topIssue, detail: `Weakness score: ${c.weaknessScore}/100` })),
  actionItems: [{ priority: 1, action: "Focus on trail braking at La Source", why: "Releasing brake too quickly, losing 0.3s" }],
});
return { reportId: report.id, corners: weak.length };
