const weak = await brakinglab.getWeakCorners({ trackName: "Spa", limit: 3 });
return weak;
