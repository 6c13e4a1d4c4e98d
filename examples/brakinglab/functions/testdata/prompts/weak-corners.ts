// "Where am I losing time at Spa, and what am I doing wrong on the brakes there?"
const weak = await brakinglab.getWeakCorners({ trackName: "Spa", limit: 3 });
const [latest] = await brakinglab.getSessions({ trackName: "Spa", limit: 1 });
const zones = await brakinglab.getBrakingZones({ sessionId: latest.id });
return weak.map((w) => {
  const z = zones.find((b) => b.cornerIndex === w.cornerIndex);
  return {
    corner: w.cornerName,
    score: w.weaknessScore,
    issue: w.topIssue,
    lostMs: w.timeLostMs,
    brakePointM: z?.brakePointM,
    brakeSpreadM: z?.brakePointSpreadM,
  };
});
