// "Where am I losing the most time at Spa, and is my braking into La Source the problem?"
const weak = await brakinglab.getWeakCorners({ trackName: "Spa", limit: 3 });
const [latest] = await brakinglab.getSessions({ trackName: "Spa", limit: 1 });
const zones = await brakinglab.getBrakingZones({ sessionId: latest.id });
const laSource = zones.find((z) => z.cornerName === "La Source");
for (const c of weak) console.log(`${c.cornerName}: ${c.topIssue}, ${c.timeLostMs} ms/lap, score ${c.weaknessScore}`);
return {
  weakest: weak.map((c) => c.cornerName),
  laSource: laSource && { brakePointM: laSource.brakePointM, consistencyPct: laSource.consistencyPct, minSpeedKph: laSource.minSpeedKph },
};
