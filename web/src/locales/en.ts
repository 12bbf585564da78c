import type { Messages } from './zh'

const en: Messages = {
  app: {
    title: 'PV Station Smart O&M Monitoring Platform',
  },
  language: {
    label: 'Language',
    zh: '中文',
    en: 'English',
  },
  route: {
    login: 'Login',
    forget: 'Forgot password',
    lock: 'Locked',
    notFound: 'Page not found',
    forbidden: 'Forbidden',
    serverError: 'Server error',
    home: 'Home',
  },
  login: {
    heading: 'Sign in',
    tenantId: 'Tenant ID',
    account: 'Account',
    password: 'Password',
    submit: 'Sign in',
    notYet: 'Sign-in arrives in the next release; for now this page only shows the server status.',
    forget: 'Forgot password',
  },
  server: {
    checking: 'Server: checking…',
    ok: 'Server: OK · database {{database}} · version {{version}}',
    notOk: 'Server: {{status}} · database {{database}} · version {{version}}',
    unreachable: 'Server: unreachable',
  },
  forget: {
    note: 'Password recovery arrives in a later release; ask an administrator to reset your password.',
    backToLogin: 'Back to login',
  },
  lock: {
    title: 'Screen locked',
    note: 'Unlocking arrives in a later release.',
  },
  error: {
    notFound: 'Sorry, the page you visited does not exist.',
    forbidden: 'Sorry, you are not allowed to access this page.',
    serverError: 'Sorry, something went wrong on the server.',
    backHome: 'Back home',
  },
  layout: {
    logout: 'Log out',
  },
  home: {
    mapLater: 'The station map overview arrives in a later release.',
  },
  clock: {
    weekdays: {
      sun: 'Sunday',
      mon: 'Monday',
      tue: 'Tuesday',
      wed: 'Wednesday',
      thu: 'Thursday',
      fri: 'Friday',
      sat: 'Saturday',
    },
  },
  request: {
    unknownError: 'Unknown error',
  },
  common: {
    loading: 'Loading…',
  },
}

export default en
