  // ---- the tool table --------------------------------------------------
  var tableGroups = [];
  var toolsByName = new NativeMap();
  var lastReport = null;
  // The key of an empty table: a page without tools never causes a notify.
  var lastKey = '[[],[],[],0]';
  var reportSeq = 0;

  function lookup(name) {
    var e = apply(mapGet, toolsByName, [name]);
    return e === undefined ? null : e;
  }

  function callTool(entry, params) {
    var fn = entry.tool.execute;
    if (typeof fn !== 'function') {
      throw new ErrorCtor('Tool ' + entry.name + ' has no execute function any more');
    }
    return apply(fn, entry.tool, [params]);
  }

  async function executeTool(name, params) {
    var entry = lookup(name);
    if (entry === null) throw new ErrorCtor('Tool ' + safeString(name) + ' not found');
    return await callTool(entry, params);
  }

