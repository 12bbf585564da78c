import { CopyOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import { App, Button, Empty, Modal, Space, Spin, Tabs, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import type { CodeRow } from '../../../api/develop/code'
import { previewQuery } from '../../../api/develop/queries'
import CodeView from './CodeView'

interface Props {
  row: CodeRow
  onClose: () => void
}

const fileName = (path: string) => path.split('/').at(-1) ?? path

/** 预览: every file the row generates, one tab each, highlighted, with a copy button. */
export default function CodePreview({ row, onClose }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const files = useQuery(previewQuery(row.id ?? ''))

  const copy = async (content: string) => {
    try {
      await navigator.clipboard.writeText(content)
      void message.success(t('develop.code.copied'))
    } catch {
      // Clipboard refused (no permission, not a secure context): the code stays selectable.
      void message.warning(t('develop.code.copyFailed'))
    }
  }

  return (
    <Modal
      open
      width={1100}
      title={t('develop.code.previewTitle', { name: row.codeName })}
      onCancel={onClose}
      destroyOnHidden
      wrapClassName="code-preview"
      footer={
        <Button onClick={onClose} data-testid="code-preview-close">
          {t('crud.close')}
        </Button>
      }
    >
      {files.isPending ? (
        <Spin />
      ) : (files.data ?? []).length === 0 ? (
        <Empty description={t('develop.code.noFiles')} />
      ) : (
        <Tabs
          data-testid="code-preview-tabs"
          items={(files.data ?? []).map((file) => ({
            key: file.path,
            label: <span title={file.path}>{fileName(file.path)}</span>,
            children: (
              <div data-testid="code-preview-file" data-path={file.path}>
                <Space
                  style={{ width: '100%', justifyContent: 'space-between', marginBottom: 8 }}
                  wrap
                >
                  <Typography.Text code>{file.path}</Typography.Text>
                  <Button
                    size="small"
                    icon={<CopyOutlined />}
                    data-testid="code-preview-copy"
                    onClick={() => void copy(file.content)}
                  >
                    {t('develop.code.copyCode')}
                  </Button>
                </Space>
                <CodeView code={file.content} language={file.language} />
              </div>
            ),
          }))}
        />
      )}
    </Modal>
  )
}
