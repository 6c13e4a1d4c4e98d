// class 8: a field read from an array result.
// reply: The script read .id at line 5 from an array (the result of brakinglab.getSessions is a list)
// reply: list[0].id
const latest = await brakinglab.getSessions({ limit: 1 });
const laps = await brakinglab.getLaps({ sessionId: latest.id });
return laps.length;
