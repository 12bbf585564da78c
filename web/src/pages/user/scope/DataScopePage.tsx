import { dataScopeConfig } from './config'
import ScopeScreen from './ScopeScreen'

/** /authority/datascope: data scopes per menu. */
export default function DataScopePage() {
  return <ScopeScreen config={dataScopeConfig} />
}
