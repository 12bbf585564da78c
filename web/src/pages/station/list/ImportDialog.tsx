import { InboxOutlined } from '@ant-design/icons'
import { Alert, App, Button, Modal, Space, Table, Typography, Upload } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  importStations,
  isExcelFile,
  saveDownload,
  stationTemplate,
  type ImportRowError,
} from '../../../api/station/excel'

interface Props {
  open: boolean
  onClose: () => void
  /** After a successful import (the list reloads). */
  onImported: () => void
}

/**
 * Imports stations from the Excel template. The server imports all rows or none: a refusal shows
 * its message and every problem by row and column here, so the file can be fixed and sent again.
 */
export default function ImportDialog({ open, onClose, onImported }: Props) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<{ message: string; errors: ImportRowError[] } | null>(null)

  const send = async (file: File) => {
    if (!isExcelFile(file.name)) {
      void message.error(t('stationUi.import.wrongType'))
      return
    }
    setBusy(true)
    setFailure(null)
    const result = await importStations(file)
    setBusy(false)
    if (result.ok) {
      void message.success(t('stationUi.import.done', { count: result.imported }))
      onImported()
      onClose()
    } else setFailure(result)
  }

  const template = async () => {
    try {
      saveDownload(await stationTemplate())
    } catch {
      // shown by the request client
    }
  }

  return (
    <Modal
      open={open}
      title={t('stationUi.import.title')}
      width={760}
      destroyOnHidden
      onCancel={onClose}
      wrapClassName="station-import-dialog"
      footer={
        <Button onClick={onClose} data-testid="import-close">
          {t('crud.close')}
        </Button>
      }
    >
      <Space direction="vertical" style={{ width: '100%' }}>
        <Typography.Paragraph type="secondary">
          {t('stationUi.import.hint')}{' '}
          <Typography.Link data-testid="import-template" onClick={() => void template()}>
            {t('stationUi.import.template')}
          </Typography.Link>
        </Typography.Paragraph>
        <Upload.Dragger
          accept=".xls,.xlsx"
          multiple={false}
          showUploadList={false}
          disabled={busy}
          data-testid="import-file"
          beforeUpload={(file) => {
            void send(file)
            return false
          }}
        >
          <p className="ant-upload-drag-icon">
            <InboxOutlined />
          </p>
          <p>{busy ? t('stationUi.import.sending') : t('stationUi.import.drop')}</p>
        </Upload.Dragger>
        {failure && (
          <>
            <Alert type="error" showIcon message={failure.message} data-testid="import-failure" />
            {failure.errors.length > 0 && (
              <Table<ImportRowError>
                data-testid="import-errors"
                size="small"
                bordered
                rowKey={(e) => `${e.row}-${e.field}-${e.message}`}
                dataSource={failure.errors}
                pagination={failure.errors.length > 10 ? { pageSize: 10 } : false}
                columns={[
                  { title: t('stationUi.import.row'), dataIndex: 'row', width: 80 },
                  {
                    title: t('stationUi.import.column'),
                    dataIndex: 'label',
                    width: 180,
                    render: (label: string) => label || t('stationUi.import.wholeRow'),
                  },
                  { title: t('stationUi.import.problem'), dataIndex: 'message' },
                ]}
              />
            )}
          </>
        )}
      </Space>
    </Modal>
  )
}
