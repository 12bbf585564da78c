import { apiScopeConfig } from './config'
import ScopeScreen from './ScopeScreen'

/** /authority/apiscope: API scopes per menu. */
export default function ApiScopePage() {
  return <ScopeScreen config={apiScopeConfig} />
}
