import CrudPage from '../../../components/crud/CrudPage'
import { postConfig } from './config'

/** /system/post: posts. */
export default function PostPage() {
  return <CrudPage config={postConfig} />
}
