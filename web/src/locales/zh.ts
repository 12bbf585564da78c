/** Chinese (default). `en.ts` must have exactly the same keys; the compiler and a test check it. */
const zh = {
  app: {
    title: '光伏电站智慧运维监控平台',
  },
  language: {
    label: '语言',
    zh: '中文',
    en: 'English',
  },
  route: {
    login: '登录',
    forget: '忘记密码',
    lock: '锁屏',
    notFound: '页面不存在',
    forbidden: '无权访问',
    serverError: '服务器错误',
    home: '首页',
  },
  login: {
    heading: '账号登录',
    tenantId: '租户ID',
    account: '账号',
    password: '密码',
    submit: '登录',
    notYet: '登录功能将在下一个版本提供，目前仅显示服务状态。',
    forget: '忘记密码',
  },
  server: {
    checking: '服务状态：检查中…',
    ok: '服务状态：正常 · 数据库 {{database}} · 版本 {{version}}',
    notOk: '服务状态：{{status}} · 数据库 {{database}} · 版本 {{version}}',
    unreachable: '服务状态：无法连接服务器',
  },
  forget: {
    note: '找回密码功能将在后续版本提供，请联系管理员重置密码。',
    backToLogin: '返回登录',
  },
  lock: {
    title: '屏幕已锁定',
    note: '解锁功能将在后续版本提供。',
  },
  error: {
    notFound: '抱歉，您访问的页面不存在。',
    forbidden: '抱歉，您无权访问此页面。',
    serverError: '抱歉，服务器出错了。',
    backHome: '返回首页',
  },
  layout: {
    logout: '退出登录',
  },
  home: {
    mapLater: '电站地图总览将在后续版本提供。',
  },
  clock: {
    weekdays: {
      sun: '星期日',
      mon: '星期一',
      tue: '星期二',
      wed: '星期三',
      thu: '星期四',
      fri: '星期五',
      sat: '星期六',
    },
  },
  request: {
    unknownError: '未知错误',
  },
  common: {
    loading: '加载中…',
  },
}

export type Messages = typeof zh
export default zh
