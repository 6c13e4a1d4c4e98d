const d = await codemode.describe(["getLaps"]);
return d;
