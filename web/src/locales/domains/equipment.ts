/**
 * Messages of 设备总览 (`/equipment`): columns, filters, kinds, sources, statuses and the
 * summary row, both languages side by side; `zh.ts` and `en.ts` spread them in.
 */
export const zh = {
  equipment: {
    title: '设备总览',
    field: {
      station: '电站',
      kind: '设备类型',
      name: '设备名称',
      model: '型号',
      sn: 'SN',
      firmware: '固件版本',
      source: '数据来源',
      status: '状态',
      lastSample: '最新数据时间',
      missedPolls: '失败轮询(24h)',
      suspectValues: '可疑值(24h)',
      counterRebases: '计数器重基(24h)',
      keyword: '关键字',
    },
    hint: {
      missedPolls: '近24小时（自24小时前的整点起）网关状态报告的失败轮询次数',
      suspectValues: '近24小时（自24小时前的整点起）带可疑标记的样本数',
      counterRebases: '近24小时电量计数器的重基次数',
    },
    kind: {
      all: '全部',
      inverter: '逆变器',
      meter: '电表',
      weather: '气象站',
      tracker: '跟踪支架',
      camera: '摄像头',
    },
    source: { gateway: '网关', vendor: '厂商云' },
    status: {
      online: '在线',
      offline: '离线',
      fault: '故障',
      withheld: '数据暂停',
      never: '从未上报',
      unknown: '—',
    },
    placeholder: {
      allStations: '全部电站',
      any: '全部',
      keyword: '名称 / SN / 型号',
    },
    action: {
      filters: '筛选',
      search: '查询',
      reset: '重置',
      export: '导出Excel',
      live: '实时数据',
    },
    summary: { total: '共 {{count}} 台' },
    message: { exported: '已导出 {{name}}', exportFailed: '导出失败' },
  },
}

export const en: typeof zh = {
  equipment: {
    title: 'Equipment',
    field: {
      station: 'Station',
      kind: 'Kind',
      name: 'Name',
      model: 'Model',
      sn: 'SN',
      firmware: 'Firmware',
      source: 'Source',
      status: 'Status',
      lastSample: 'Last sample',
      missedPolls: 'Failed polls (24 h)',
      suspectValues: 'Suspect (24 h)',
      counterRebases: 'Rebases (24 h)',
      keyword: 'Keyword',
    },
    hint: {
      missedPolls: 'Failed polls its gateway reported in the last 24 h (from the hour 24 h ago)',
      suspectValues: 'Samples with suspect marks in the last 24 h (from the hour 24 h ago)',
      counterRebases: 'Energy counter rebases in the last 24 h',
    },
    kind: {
      all: 'All',
      inverter: 'Inverter',
      meter: 'Meter',
      weather: 'Weather station',
      tracker: 'Tracker',
      camera: 'Camera',
    },
    source: { gateway: 'Gateway', vendor: 'Vendor cloud' },
    status: {
      online: 'Online',
      offline: 'Offline',
      fault: 'Fault',
      withheld: 'Withheld',
      never: 'Never reported',
      unknown: '—',
    },
    placeholder: {
      allStations: 'All stations',
      any: 'Any',
      keyword: 'Name / SN / model',
    },
    action: {
      filters: 'Filters',
      search: 'Search',
      reset: 'Reset',
      export: 'Export Excel',
      live: 'Live data',
    },
    summary: { total: '{{count}} in all' },
    message: { exported: 'Exported {{name}}', exportFailed: 'Export failed' },
  },
}
